"""Card numbers, national ID numbers and passwords are removed; look-alikes are kept."""

import json

import pytest

from memory.redaction import CARD_MARK, ID_MARK, PASSWORD_MARK, contains_secret, redact


@pytest.mark.parametrize(
    ("text", "mark"),
    [
        ("my card is 4111 1111 1111 1111 thanks", CARD_MARK),
        ("卡号4111-1111-1111-1111", CARD_MARK),
        ("card 5500005555555559", CARD_MARK),
        ("身份证号 11010519491231002X", ID_MARK),
        ("SSN 123-45-6789", ID_MARK),
        ("my password is hunter2!", PASSWORD_MARK),
        ("密码是abc123，谢谢", PASSWORD_MARK),
        ("密码abc123", PASSWORD_MARK),
        ("PIN: 1234", PASSWORD_MARK),
    ],
)
def test_secrets_are_replaced_by_a_mark(text, mark):
    redacted = redact(text)
    assert mark in redacted
    assert not any(secret in redacted for secret in ("4111", "5500", "11010519491231002X", "6789", "hunter2", "abc123"))


@pytest.mark.parametrize(
    "text",
    [
        "order ORD-2025-0816 phone 13812345678",
        "amount 12345678901234 is not a valid card",  # fails Luhn
        "身份证号 110105194912310021",  # wrong check digit
        "shipping address is 5 Elm St",  # "pin" inside a word
        "我的生日是3月15日",
    ],
)
def test_look_alikes_are_kept(text):
    assert redact(text) == text
    assert not contains_secret(text)


def test_tracking_numbers_are_not_cards():
    # 15 digits that happen to pass Luhn, glued to a carrier's letters
    assert redact("SF378282246310005 is on its way") == "SF378282246310005 is on its way"
    assert CARD_MARK in redact("card: 378282246310005")


def test_json_keeps_its_shape_when_redacted():
    from memory.redaction import redact_json

    raw = '{"address": "pay with 4111 1111 1111 1111", "card": 4111111111111111, "n": 3, "ok": true}'
    redacted = json.loads(redact_json(raw))
    assert redacted == {"address": f"pay with {CARD_MARK}", "card": CARD_MARK, "n": 3, "ok": True}
    assert redact_json('{"order": "ORD-2025-0816"}') == '{"order": "ORD-2025-0816"}'  # untouched, byte for byte


@pytest.mark.django_db
def test_the_session_store_keeps_no_secret_whoever_wrote_it(django_user_model):
    """The model may echo a secret in its reply or its tool arguments: the store redacts those too."""
    from django_redis import get_redis_connection

    from agentsite import clock
    from memory.models import ConversationMessage
    from memory.session import SessionStore
    from memory.working import Entry, Role, ToolCall

    store = SessionStore()
    conversation = store.start(django_user_model.objects.create_user("echo").pk).id
    now = clock.now()
    call = ToolCall("c1", "update_shipping_address", json.dumps({"address": "PIN: 9876, 5 Elm St"}))
    store.append(conversation, Entry.create(Role.ASSISTANT, "Your card 4111 1111 1111 1111 is noted", timestamp=now))
    store.append(conversation, Entry.create(Role.TOOL_CALL, "", timestamp=now, tool_calls=[call]))
    store.append(conversation, Entry.create(Role.TOOL_RESULT, "ok", timestamp=now, tool_call_id="c1"),
                 raw='{"echo": "ID 11010519491231002X"}')  # fmt: skip

    rows = "".join(m.content + json.dumps(m.metadata) for m in ConversationMessage.objects.all())
    redis = get_redis_connection("default")
    hot = b"".join(b"".join(redis.lrange(k, 0, -1)) for k in redis.scan_iter("stm:*:msgs")).decode()
    for kept in (rows, hot):
        assert "4111" not in kept and "9876" not in kept and "11010519491231002X" not in kept
    history = store.history(conversation)  # what a later turn's working memory is built from
    assert history[0].content == f"Your card {CARD_MARK} is noted"
    assert json.loads(history[1].tool_calls[0].arguments) == {"address": f"PIN: {PASSWORD_MARK}, 5 Elm St"}
