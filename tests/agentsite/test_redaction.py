"""Card, ID, passport and IBAN numbers, security codes and passwords are removed; look-alikes are kept."""

import json
import logging

import pytest

from agentsite.redaction import (
    CARD_MARK,
    IBAN_MARK,
    ID_MARK,
    MARKS,
    PASSPORT_MARK,
    PASSWORD_MARK,
    SECURITY_CODE_MARK,
    RedactingFilter,
    contains_secret,
    redact,
    redact_json,
)


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
    raw = '{"address": "pay with 4111 1111 1111 1111", "card": 4111111111111111, "n": 3, "ok": true}'
    redacted = json.loads(redact_json(raw))
    assert redacted == {"address": f"pay with {CARD_MARK}", "card": CARD_MARK, "n": 3, "ok": True}
    assert redact_json('{"order": "ORD-2025-0816"}') == '{"order": "ORD-2025-0816"}'  # untouched, byte for byte


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # card numbers in any common format: dots, spaces, dashes, Amex's grouping, full-width digits
        ("card 4111.1111.1111.1111 thanks", f"card {CARD_MARK} thanks"),
        ("card 4111 1111  1111 1111", f"card {CARD_MARK}"),
        ("card 4111 - 1111 - 1111 - 1111.", f"card {CARD_MARK}."),
        ("Amex 3782 822463 10005", f"Amex {CARD_MARK}"),
        ("卡号：６２２２ ０２１２ ３４５６ ７８９０ １２８。", f"卡号：{CARD_MARK}。"),
        ("4111111111111111 12/26 123", f"{CARD_MARK} 12/26 123"),  # the expiry and CVV do not hide it
        ("cards 4111111111111111,5500005555555559", f"cards {CARD_MARK},{CARD_MARK}"),
        ("1. 4111 1111 1111 1111", f"1. {CARD_MARK}"),
        # Chinese resident ID numbers with spaces or dashes between the groups
        ("身份证 110105 19491231 002X", f"身份证 {ID_MARK}"),
        ("ID 110105 1949 1231 002X ok", f"ID {ID_MARK} ok"),
        ("ID 110105-19491231-002x", f"ID {ID_MARK}"),
        ("身份证号440305199003071236，谢谢", f"身份证号{ID_MARK}，谢谢"),
        # US social security numbers, dashed anywhere or in any form after the word
        ("SSN: 123456789", f"SSN: {ID_MARK}"),
        ("social security number 123 45 6789", f"social security number {ID_MARK}"),
        # passport numbers, by the word before them, or the Chinese shape near the word
        ("my passport number is E12345678.", f"my passport number is {PASSPORT_MARK}."),
        ("护照号码：G12345678", f"护照号码：{PASSPORT_MARK}"),
        ("Passport no. 123456789", f"Passport no. {PASSPORT_MARK}"),
        ("passport C01X00T47 (German)", f"passport {PASSPORT_MARK} (German)"),
        ("E12345678是我的护照号", f"{PASSPORT_MARK}是我的护照号"),
        ("护照 EA1234567", f"护照 {PASSPORT_MARK}"),
        # IBANs that pass the mod-97 check, with or without spaces, any case
        ("IBAN GB82 WEST 1234 5698 7654 32, thanks", f"IBAN {IBAN_MARK}, thanks"),
        ("pay to DE89370400440532013000 today", f"pay to {IBAN_MARK} today"),
        ("iban: fr14 2004 1010 0505 0001 3m02 606", f"iban: {IBAN_MARK}"),
        ("NL91ABNA0417164300 and CH9300762011623852957", f"{IBAN_MARK} and {IBAN_MARK}"),
        # card security codes and one-time codes, by the words before them
        ("CVV 123", f"CVV {SECURITY_CODE_MARK}"),
        ("cvv2: 456", f"cvv2: {SECURITY_CODE_MARK}"),
        ("the security code is 7890", f"the security code is {SECURITY_CODE_MARK}"),
        ("安全码123", f"安全码{SECURITY_CODE_MARK}"),
        ("卡背面三位数是 321", f"卡背面三位数是 {SECURITY_CODE_MARK}"),
        ("验证码：482913，请勿告诉他人", f"验证码：{SECURITY_CODE_MARK}，请勿告诉他人"),
        ("verification code 5521", f"verification code {SECURITY_CODE_MARK}"),
        # passwords
        ("pwd=s3cret!", f"pwd={PASSWORD_MARK}"),
        ("PIN code 4321", f"PIN code {PASSWORD_MARK}"),
        ("my password is: hunter2", f"my password is: {PASSWORD_MARK}"),
        # variants an attack on the running demo typed (2026-12-03)
        ("4111_1111_1111_1111", CARD_MARK),
        ("4111/1111/1111/1111", CARD_MARK),
        ("4111,1111,1111,1111", CARD_MARK),
        ("4111•1111•1111•1111", CARD_MARK),
        ("4111 · 1111 · 1111 · 1111", CARD_MARK),
        ("DE89-3704-0044-0532-0130-00", IBAN_MARK),
        ("CVV2 - 123", f"CVV2 - {SECURITY_CODE_MARK}"),
        ("cvv code 123", f"cvv code {SECURITY_CODE_MARK}"),
        ("the 3 digits on the back are 123", f"the 3 digits on the back are {SECURITY_CODE_MARK}"),
        ("code on back: 456", f"code on back: {SECURITY_CODE_MARK}"),
        ("passport number A 1234567", f"passport number {PASSPORT_MARK}"),
        ("passport E 1234 5678", f"passport {PASSPORT_MARK}"),
        ("passport X12-34567", f"passport {PASSPORT_MARK}"),
        ("pw hunter2", f"pw {PASSWORD_MARK}"),
    ],
)
def test_each_kind_of_secret_becomes_its_mark(text, expected):
    assert redact(text) == expected
    assert contains_secret(text)


@pytest.mark.parametrize(
    "text",
    [
        # a float's fraction that happens to pass Luhn is not a card
        "took 0.4111111111111111 s",
        "score=0.12345678901234569",  # 12345678901234569 passes Luhn
        "latency 12.4111111111111111 ms",
        # tracking numbers of the usual carriers (each digit part passes Luhn)
        "SF1234567890128 is on its way",
        "UPS 1Z999AA10123456784",
        "JD0001234567890 / YT1234567890128 / ZT4111111111111111",
        "运单号 773012345678908",  # a plain 15-digit waybill number after a carrier word
        "tracking number: 123456789012347",
        # order numbers, amounts, weights, timings
        "order ORD-2025-0816 of ¥1,234.56",
        "refund $4111.11 or 1234567.89 CNY",
        "parcel 12.5 kg, took 12.345 ms",
        # phone numbers ("8613812345678" passes Luhn) and dates
        "call +86 138 1234 5678 or 13812345678",
        "delivered 2025-08-16, or 16.08.2025, or 2025年8月16日",
        "server 192.168.100.200",
        # a longer digit string, and numbers under 13 digits
        "batch 9994111111111111111999",
        "qty 123456789012",
        # near misses of the new kinds
        "GB82 WEST 1234 5698 7654 33",  # fails mod-97
        "my passport was lost, it expires in 2030",
        "invoice E12345678",  # the passport shape without the word
        "the CVV is on the back of the card",
        "身份证号 440305199013071236",  # month 13, even with the right check character
        # prose that names a password without giving one
        "我忘记密码了，密码错误",
        # near misses of the attack's variants: lists, prose, product codes
        "ORD-2025-0816 / 13812345678",
        "items 1,234 and 5,678; 1, 2, 3",
        "order 12345 / 67890 / 11111",
        "the passport is valid until 2030",
        "call me back at 13812345678",
        "PW-200 vacuum cleaner",
    ],
)
def test_more_look_alikes_are_kept(text):
    assert redact(text) == text
    assert not contains_secret(text)


def test_a_decimal_fraction_in_a_log_line_is_kept(json_log):
    """A float in a log line stays whole, not "took 0.[card number removed] s"."""
    logging.getLogger("chat.anything").info("model call took %s s", 0.4111111111111111)
    assert json_log.lines()[0]["message"] == "model call took 0.4111111111111111 s"


@pytest.mark.parametrize(
    "text",
    [
        "password is [password removed]",  # a mark is not redacted again into "... [password removed] removed]"
        *MARKS,
        " ".join(MARKS),
        "password " + "".join(MARKS),
        "密码" + PASSWORD_MARK + "x",
        "passport number [passport number removed] E12345678",
        f"{CARD_MARK}-123-45-6789 and 123-45-6789-{CARD_MARK}",
        "4111111111111111-123-45-6789",
        "password 4111 1111 1111 1111",
        "4111 1111 1111 1111 4111 1111 1111 1111 1111",
        "CVV 4111111111111111 123 PIN 12 34",
        "pin pin 1234",
        "PIN 运单号 773012345678908",  # the carrier's name taken for a password: the waybill number stays kept
        "4111111111111111-DE89370400440532013000",  # one hyphenated token: neither half is redacted, either pass
    ],
)
def test_redacting_twice_changes_nothing(text):
    once = redact(text)
    assert redact(once) == once
    assert "removed] removed]" not in once


def test_every_mark_is_kept_as_it_is():
    for mark in MARKS:
        assert redact(f"password is {mark}") == f"password is {mark}"
        assert redact(f"{mark} {mark}") == f"{mark} {mark}"


def test_tool_arguments_with_escaped_text_or_secret_keys_are_redacted():
    """Tool-call arguments come as ASCII JSON: "密码" arrives as \\u5bc6\\u7801 and must still be seen."""
    escaped = json.dumps({"note": "密码abc123", "pin": "0000", "password": "hunter2", "cvv": 123})
    assert json.loads(redact_json(escaped)) == {
        "note": f"密码{PASSWORD_MARK}",
        "pin": PASSWORD_MARK,
        "password": PASSWORD_MARK,
        "cvv": SECURITY_CODE_MARK,
    }
    kept = json.dumps({"took": 0.4111111111111111, "pinned": "yes", "passport_checked": True})
    assert redact_json(kept) == kept


def test_the_logging_filter_redacts_the_new_kinds_and_keeps_the_rest():
    record = logging.LogRecord(
        "chat", logging.INFO, __file__, 1, "cvv %s, took %s s", ("123", 0.4111111111111111), None
    )
    RedactingFilter().filter(record)
    assert record.getMessage() == f"cvv {SECURITY_CODE_MARK}, took 0.4111111111111111 s"


@pytest.mark.timeout(30)  # linear patterns take milliseconds here; backtracking ones would not finish
@pytest.mark.parametrize(
    "text",
    [
        "1 " * 50_000,
        "1-" * 50_000 + "a",
        "1." * 50_000,
        "4111 " * 20_000 + "x",
        "password " * 12_500,
        "passport number is " * 5_000,
        "GB82 " * 20_000,
        "1" * 100_000,
        "密码" * 50_000,
        "[password removed]" * 5_000,
    ],
)
def test_long_adversarial_input_takes_linear_time(text):
    assert redact(redact(text)) == redact(text)


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
    store.append(
        conversation,
        Entry.create(Role.TOOL_RESULT, "ok", timestamp=now, tool_call_id="c1"),
        raw='{"echo": "ID 11010519491231002X"}',
    )

    rows = "".join(m.content + json.dumps(m.metadata) for m in ConversationMessage.objects.all())
    redis = get_redis_connection("default")
    hot = b"".join(b"".join(redis.lrange(k, 0, -1)) for k in redis.scan_iter("stm:*:msgs")).decode()
    for kept in (rows, hot):
        assert "4111" not in kept and "9876" not in kept and "11010519491231002X" not in kept
    history = store.history(conversation)  # what a later turn's working memory is built from
    assert history[0].content == f"Your card {CARD_MARK} is noted"
    assert json.loads(history[1].tool_calls[0].arguments) == {"address": f"PIN: {PASSWORD_MARK}, 5 Elm St"}
