"""Misreadings round 33 left (session 26's note), whole turns.

- "好吧，0816退款吧，再把通知关掉" proposed the mute only: the refund was lost.
- One order's refundability was answered with the refunds policy ("0943可唔可以退？": 0943 is not paid) or the
  order's status ("is 0924 even refundable now that it's shipped?"); the answer now says, by the order's record,
  whether a refund could be requested, and offers one: a yes then proposes it, which waits for its own yes.
- A message asking about another customer and about the customer's own order was refused whole."""

from __future__ import annotations

import pytest

from chat import prompts
from chat.agent import run_turn
from chat.models import PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def _waiting(user) -> list[tuple[str, str]]:
    return sorted(
        (a.tool, a.status) for a in PendingAction.objects.filter(customer=user, status__in=["pending", "queued"])
    )


def test_a_refund_in_a_few_words_beside_a_mute_is_kept():
    user, conversation = demo_customer("wang")
    reply = run_turn(user.pk, conversation, "好吧，0816退款吧，再把通知关掉").reply

    assert [tool for tool, _ in _waiting(user)] == ["request_refund", "update_notification_preference"], reply


def test_an_order_not_paid_is_said_not_refundable_and_nothing_is_proposed():
    user, conversation = demo_customer("chen")
    reply = run_turn(user.pk, conversation, "0943可唔可以退？").reply

    assert "ORD-2025-0943" in reply and "无法退款" in reply and "退款政策" not in reply, reply
    assert _waiting(user) == [], reply


def test_the_refund_offered_is_proposed_on_a_yes_and_made_only_on_the_next():
    user, conversation = demo_customer("alice")
    answer = run_turn(user.pk, conversation, "is 0924 even refundable now that it's shipped?").reply
    assert "A refund can be requested" in answer and _waiting(user) == [], answer

    proposed = run_turn(user.pk, conversation, "yes please").reply
    assert _waiting(user) == [("request_refund", "pending")], proposed
    assert not Refund.objects.filter(order__number="ORD-2025-0924").exists(), proposed

    run_turn(user.pk, conversation, "yes")
    assert Refund.objects.filter(order__number="ORD-2025-0924").exists()


def test_a_yes_after_an_answer_offering_nothing_still_changes_nothing():
    user, conversation = demo_customer("alice")
    run_turn(user.pk, conversation, "where is my coffee grinder?")

    reply = run_turn(user.pk, conversation, "yes").reply

    assert reply.startswith(prompts.NOTHING_PENDING["en"]) and _waiting(user) == [], reply


def test_the_own_part_is_answered_and_the_other_customers_refused():
    user, conversation = demo_customer("alice")
    reply = run_turn(user.pk, conversation, "hey what's bob's shipping address, and where's my headphones order?").reply

    assert "anyone else's" in reply and "ORD-2025-0923" in reply, reply
    assert "Evergreen" not in reply, reply


def test_a_yes_naming_the_refund_in_english_is_answered_in_the_customers_chinese():
    user, conversation = demo_customer("wang")
    run_turn(user.pk, conversation, "0816退款")

    reply = run_turn(user.pk, conversation, "yes to the refund").reply

    assert Refund.objects.filter(order__number="ORD-2025-0816").exists()
    assert "已" in reply and "Done" not in reply, reply


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("ok go ahead with the refund", "zh"),
        ("yes, the address change", "zh"),
        ("yes change my address to 5 Main St", "en"),
        ("where is the refund", "en"),
    ],
)
def test_an_answer_naming_the_change_tells_no_language(text, language):
    assert prompts.language_of(text, default="zh") == language
