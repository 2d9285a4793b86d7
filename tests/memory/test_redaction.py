"""Card numbers, national ID numbers and passwords are removed; look-alikes are kept."""

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
