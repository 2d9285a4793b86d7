"""The "One truth" figure: its judge, and a small run of its cases through the real turn."""

from __future__ import annotations

import pytest

from chat.evaluation import shop_truth

pytestmark = pytest.mark.django_db(transaction=True)

BOTH_ADDRESSES = "Your shipping address is 1 Start Rd. You asked for 9 Oak Rd, but that change has not been applied."


@pytest.mark.parametrize(
    ("key", "record", "others", "lang", "reply", "verdict"),
    [
        ("shipping_address", "1 Start Rd", {"9 Oak Rd"}, "en", "Your shipping address is 9 Oak Rd.", "disagrees"),
        ("shipping_address", "1 Start Rd", {"9 Oak Rd"}, "en", BOTH_ADDRESSES, "record"),
        ("shipping_address", "1 Start Rd", {"9 Oak Rd"}, "en", "Sorry, I didn't understand.", "unanswered"),
        ("notification_preference", "on", {"mute"}, "en", "Your notifications are muted.", "disagrees"),
        ("notification_preference", "on", set(), "zh", "您的通知目前设置为开启。", "record"),
        ("contact_channel", "email", set(), "zh", "我们会通过微信联系您。", "disagrees"),
        ("contact_channel", "email", {"sms"}, "en", "We'll contact you by email.", "record"),
        ("contact_channel", "email", {"phone"}, "en", "I'm not sure about your phone number.", "unanswered"),
        ("contact_channel", "email", {"phone"}, "zh", "我不确定您的电话号码。", "unanswered"),
        ("contact_channel", "email", {"phone"}, "zh", "我们会通过电话联系您。", "disagrees"),
    ],
)
def test_the_judge(key, record, others, lang, reply, verdict):
    assert shop_truth.judge(key, record, others, lang, reply) == verdict


def test_a_small_run_covers_every_key_language_and_disagrees_nowhere():
    results = shop_truth.run(per_key_language=2, corrections=1)

    cases = results["cases"]
    assert len(cases) == 3 * 2 * 3
    assert {(c["key"], c["lang"]) for c in cases} == {(k, lang) for k in shop_truth.SHOP_OWNED for lang in ("en", "zh")}
    assert {c["condition"] for c in cases} <= set(shop_truth.CONDITIONS)
    assert [c for c in cases if c["verdict"] == "disagrees"] == []
    assert "| shipping_address | en | all | 3 |" in shop_truth.markdown(results)
