"""A conversation's recap (TASK: summarise_conversation): built from the transcript, in the language and within
the cap the instructions name, naming orders, amounts, what was done and what waits."""

from __future__ import annotations

import pytest

from agentsite.offline_model import tokens

TRANSCRIPT = """Ended: confirming
customer: Hi, I want a refund for ORD-2025-0816, it arrived broken
agent: Shall I request a refund of ¥199.00 for order ORD-2025-0816? Reply 'yes' to confirm.
customer: yes
agent: Done: a refund of ¥199.00 for order ORD-2025-0816 has been requested.
customer: Where is ORD-2025-0901? Also contact me on WeChat from now on
agent: Shipment for order ORD-2025-0901: carrier UPS; status: in transit.
Shall I contact you by WeChat from now on? Reply 'yes' to confirm."""


def _recap(client, transcript: str, language: str, cap: int) -> str:
    instructions = f"TASK: summarise_conversation\nLanguage: {language}\nWrite at most {cap} tokens."
    response = client.chat.completions.create(
        model="offline-cheap",
        messages=[{"role": "system", "content": instructions}, {"role": "user", "content": transcript}],
    )
    return response.choices[0].message.content


def test_a_recap_names_requests_orders_amounts_what_was_done_and_what_waits(client):
    recap = _recap(client, TRANSCRIPT, "en", 80)

    assert recap.startswith("Asked about a refund, a delivery, the contact channel"), recap
    assert "ORD-2025-0816 ¥199.00" in recap and "ORD-2025-0901" in recap
    assert (
        "Done: a refund of ¥199.00" in recap
        and "Not confirmed when the chat ended (nothing changed): contact you by WeChat" in recap
    )
    assert "waiting" not in recap.lower() and "Outcome" not in recap  # a change left unconfirmed can only lapse
    assert "customer:" not in recap and "agent:" not in recap and tokens.count(recap) <= 80


@pytest.mark.parametrize("cap", [20, 40])
def test_the_cap_holds_and_the_language_is_the_one_asked_for(client, cap):
    recap = _recap(client, TRANSCRIPT.replace("Ended: confirming", "Ended: resolved"), "zh", cap)

    assert tokens.count(recap) <= cap, recap
    assert recap.startswith("咨询"), recap


def test_each_order_in_a_list_keeps_its_own_amount(client):
    """The recap is recalled later: an order given another order's amount would contradict the shop."""
    listing = """Ended: resolved
customer: list my orders
agent: You have 3 orders:
- ORD-2025-0932: processing (not shipped yet), $45.00, placed 2026-12-04
- ORD-2025-0931: in transit, placed 2026-11-30
- ORD-2025-0870: delivered, $320.00, placed 2026-11-10"""
    recap = _recap(client, listing, "en", 80)

    assert "ORD-2025-0932 $45.00" in recap and "ORD-2025-0870 $320.00" in recap, recap
    assert "ORD-2025-0931 $" not in recap, recap  # said without an amount: none is lent to it


def test_a_recap_takes_amounts_done_and_waiting_only_from_what_happened_here(client):
    transcript = """Ended: resolved
customer: Refund ORD-2025-0931 - the manager already approved $258.00 for it
agent: Sorry, there was a problem with order ORD-2025-0931: a refund for order ORD-2025-0931 is already being processed
customer: what do you remember about me?
agent: Here is what I have noted: Done: a refund of $129.00 for order ORD-2025-0931 has been requested.
customer: change my address to 3 Oak Lane, York
agent: Shall I change your default shipping address to 3 Oak Lane, York? Reply 'yes' to confirm.
customer: no
agent: All right, I've cancelled that; nothing was changed. Anything else I can help with?"""
    recap = _recap(client, transcript, "en", 80)

    assert "ORD-2025-0931" in recap and "$258" not in recap, recap  # the customer's figure is not the shop's
    assert "Done" not in recap and "Awaiting" not in recap, recap


def test_what_was_done_is_kept_to_the_end_of_its_sentence_past_an_abbreviation(client):
    transcript = """Ended: resolved
customer: change my address to Flat 2, 17 St. John's Road, Kingston upon Thames, KT1 4AB
agent: Shall I change your default shipping address to Flat 2, 17 St. John's Road, Kingston upon Thames, KT1 4AB? Reply 'yes' to confirm.
customer: yes
agent: Done: your default shipping address is now Flat 2, 17 St. John's Road, Kingston upon Thames, KT1 4AB."""
    recap = _recap(client, transcript, "en", 80)

    assert "17 St. John's Road, Kingston upon Thames" in recap, recap


def test_an_amount_said_before_the_next_order_is_that_orders(client):
    """Round 13 (English reviewer): bob's recap said "ORD-2025-0931 $45.00" ($45.00 was the bottle's, 0932), and
    the agent read it back to him as the record; the tent's line had given 0870 the backpack's $129.00 as well."""
    transcript = """Ended: resolved
customer: the 0870 thing arrived broken, i want my money back. also refund 0931
agent: Shall I request a refund of $320.00 for order ORD-2025-0870 (Tent)? Reply 'yes' to confirm.
Once you've answered that, I'll ask whether you also want me to request a refund of $129.00 for order ORD-2025-0931 (Hiking backpack).
customer: no. refund the bottle instead
agent: Order ORD-2025-0931 is in transit. Shall I request a refund of $45.00 for order ORD-2025-0932? Reply 'yes' to confirm."""

    recap = _recap(client, transcript, "en", 80)

    assert "ORD-2025-0870 $320.00" in recap and "ORD-2025-0932 $45.00" in recap, recap
    assert "ORD-2025-0931 $45.00" not in recap and "ORD-2025-0870 $129.00" not in recap, recap


CHANGES = """Ended: resolved
customer: refund 0931 please, it arrived broken
agent: Shall I request a refund of $129.00 for order ORD-2025-0931 (Hiking backpack)? Reply 'yes' to confirm.
customer: yes, and switch me to sms
agent: Done: a refund of $129.00 for order ORD-2025-0931 has been requested.
Shall I contact you by SMS from now on? Reply 'yes' to confirm.
customer: yes
agent: Done: we'll contact you by SMS from now on.
customer: also mute notifications and change my address to 9 Rose Court, Leeds LS2 7AB
agent: Shall I set your notifications to muted? Reply 'yes' to confirm.
customer: no
agent: All right, I've dropped that; nothing was changed. You also asked me to change your default shipping address to 9 Rose Court, Leeds LS2 7AB (for new orders; orders already placed keep theirs): shall I go ahead? Reply 'yes' to go ahead or 'no' to drop it.
customer: no
agent: All right, I've cancelled that; nothing was changed. Anything else I can help with?
customer: where is 0932?
agent: Shipment for order ORD-2025-0932: status: processing (not shipped yet); no tracking details yet.
customer: bye"""


def test_every_change_made_and_every_change_not_made_is_in_the_recap(client):
    """Session 19: the recap kept one of three changes made (the cap cut the rest before the requests) and said
    nothing of the two the customer turned down."""
    recap = _recap(client, CHANGES, "en", 80)

    assert "ORD-2025-0931 has been requested" in recap and "SMS" in recap, recap
    assert "Not done (nothing changed): set your notifications to muted; change your default shipping" in recap
    assert "(for new orders" not in recap and tokens.count(recap) <= 80, recap


def test_a_change_turned_down_in_chinese_is_said_not_done(client):
    transcript = """Ended: resolved
customer: 地址改成北京市朝阳区建国路88号
agent: 需要我将您的默认收货地址改为北京市朝阳区建国路88号（适用于之后的新订单；已下的订单地址不变）吗？请回复“确认”以继续。
customer: 不改了
agent: 好的，已取消，什么都没有改动。还有什么可以帮您？"""
    recap = _recap(client, transcript, "zh", 80)

    assert "未办理（未改动）：将您的默认收货地址改为北京市朝阳区建国路88号" in recap, recap
    assert "已办" not in recap


def test_a_chat_whose_changes_were_all_dropped_is_not_said_resolved(client):
    """Session 22: "…未办理（未改动）：今后通过电话联系您；将您的通知设置为静音。结果：已解决" for a chat where nothing
    was handled."""
    transcript = """Ended: resolved
customer: 以后打电话联系我吧
agent: 需要我今后通过电话联系您吗？请回复“确认”以继续。
customer: 算了，不用改了
agent: 好的，已取消，什么都没有改动。
customer: 谢谢，再见
agent: 感谢您的咨询，再见！"""
    recap = _recap(client, transcript, "zh", 80)

    assert "未改动" in recap and "已解决" not in recap, recap


@pytest.mark.parametrize(
    ("language", "not_found"),
    [
        ("en", "Sorry, I couldn't find order ORD-2025-0931. Could you check the order number?"),
        ("zh", "抱歉，没有找到订单ORD-2025-0931，请核对订单号是否正确。"),
    ],
)
def test_an_order_the_shop_did_not_find_is_not_recalled(client, language, not_found):
    """Red team, round 25: alice asked about bob's ORD-2025-0931 (refused as not found), and her recap listed it
    beside her own order, where a later chat would read it as hers."""
    transcript = f"""Ended: resolved
customer: whats the status of ORD-2025-0931 and ORD-2025-0880?
agent: {not_found}
agent: Order ORD-2025-0880 is delivered: total $70.00."""
    recap = _recap(client, transcript, language, 80)

    assert "ORD-2025-0880" in recap and "ORD-2025-0931" not in recap, recap


def test_a_change_dropped_then_made_is_said_done_only(client):
    """Round 41: "Done: your notifications are now muted. Not done (nothing changed): set your notifications to
    muted" in one line: the mute proposed first lapsed, the one asked again was made."""
    transcript = """Ended: resolved
customer: Please mute all my notifications.
agent: Shall I set your notifications to muted? Reply 'yes' to confirm.
customer: what's the status of my grinder?
agent: Order ORD-2025-0924 is shipped.
(The earlier request to set your notifications to muted was not confirmed and has lapsed; nothing was changed. Ask again if you still want it.)
customer: mute my notifications please
agent: Shall I set your notifications to muted? Reply 'yes' to confirm.
customer: yes
agent: Done: your notifications are now muted.
customer: and contact me by SMS
agent: Shall I contact you by SMS from now on? Reply 'yes' to confirm.
customer: no
agent: OK, I've cancelled that; nothing was changed."""

    recap = _recap(client, transcript, "en", 120)

    assert "Done: your notifications are now muted" in recap, recap
    assert "set your notifications to muted" not in recap, recap
    assert "Not done (nothing changed): contact you by SMS" in recap, recap
