"""Red team round 43's leftovers (session 30): "what waits for my yes?" in words the reader did not know, and a
part of an order asked with 份 (portions) or after thanks, proposed as the whole."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.answers import asks_only_what_waits, in_simplified
from chat.models import PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    "text",
    [
        "hmm, anything pending I need to confirm?",
        "而家有咩等緊我確認？",
        "is there anything I need to approve?",
        "do I need to confirm anything?",
        "Is anything awaiting my OK?",
        "anything waiting on me?",
        "are there any requests waiting?",
        "有冇嘢要我確認？",
        "有没有需要我确认的？",
        "我还有什么没确认的？",
        "待确认的有哪些？",
        "有啥等我点头的不",
    ],
)
def test_what_waits_asked_in_other_words(text):
    assert asks_only_what_waits(in_simplified(text)), text


@pytest.mark.parametrize(
    "text",
    [
        "anything pending on my refund for 0931?",
        "do I need to confirm the refund?",
        "需要我确认退款吗？",
        "is my refund pending?",
        "what is open?",
        "anything waiting for me at the locker?",
        "is there anything I need to know about 0931?",
        "有什么要我确认的，顺便查下0816",
    ],
)
def test_questions_about_something_else_are_not_what_waits(text):
    assert not asks_only_what_waits(in_simplified(text)), text


def test_what_waits_in_cantonese_names_the_waiting_change():
    user, conversation = demo_customer("chen")
    run_turn(user.pk, conversation, "幫我退ORD-2025-0942")
    pending = PendingAction.objects.filter(customer=user, status="pending").first()

    reply = run_turn(user.pk, conversation, "而家有咩等緊我確認？").reply

    assert pending is not None
    assert reply.startswith("目前等待您确认的是：") and "0942" in reply, reply


@pytest.mark.parametrize(
    ("who", "text", "order"),
    [
        ("chen", "唔該，三份退两份就得", "ORD-2025-0942"),
        ("chen", "谢谢，0942退一份就好", "ORD-2025-0942"),
        ("wang", "保温杯两个退一个就行", "ORD-2025-0817"),
        ("bob", "thanks, refund two of the three water bottles on 0932", "ORD-2025-0932"),
    ],
)
def test_part_of_an_order_asked_is_never_proposed_whole(who, text, order):
    """Round 43: "唔該，三份退两份就得" (refund two of three) got "不客气"; read as a request, 份 was no measure word
    and the full ¥204 was proposed."""
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply

    assert "部分退款" in reply or "partial" in reply, reply
    assert not PendingAction.objects.filter(customer=user, tool="request_refund").exists(), reply
    assert not Refund.objects.filter(order__number=order).exists(), reply


def test_what_waits_asked_beside_another_question_answers_both():
    """Round 42: "我今天有什么改动？有什么待处理的？" answered only what changed; what waits was answered only when asked
    alone."""
    user, conversation = demo_customer("wang")

    both = run_turn(user.pk, conversation, "我今天有什么改动？有什么待处理的？").reply
    parcel = run_turn(user.pk, conversation, "what's pending? and where is my 0817?").reply

    assert both.startswith("目前没有等待您确认的改动。") and "没有做任何改动" in both, both
    assert parcel.startswith("Nothing is waiting for your confirmation.") and "ORD-2025-0817" in parcel, parcel


def test_what_waits_asked_beside_another_question_while_a_change_waits_names_it():
    user, conversation = demo_customer("wang")
    run_turn(user.pk, conversation, "把通知关掉")

    reply = run_turn(user.pk, conversation, "有什么待处理的？另外0817到哪了？").reply

    assert "ORD-2025-0817" in reply and "仍在等待您确认：将您的通知设置为静音" in reply, reply
    assert "没有等待" not in reply, reply


@pytest.mark.parametrize(
    ("text", "rest"),
    [
        ("我今天有什么改动？有什么待处理的？", "我今天有什么改动？"),
        ("what's pending? and where is my backpack?", "where is my backpack?"),
        ("is there anything I need to approve, and also where is 0931", "where is 0931"),
        ("what's pending?", None),
        ("where is my backpack?", None),
        ("anything waiting for me at the locker?", None),
    ],
)
def test_the_rest_beside_what_waits(text, rest):
    from chat.answers import what_waits_and_more

    assert what_waits_and_more(in_simplified(text)) == rest


@pytest.mark.parametrize(
    ("text", "read"),
    [("確認，體育東路那個", "确认，体育东路那个"), ("嗰個唔該", "那个谢谢"), ("係呀", "是的"), ("帳戶", "账户")],
)
def test_answers_are_read_in_simplified_characters_beyond_the_shops_table(text, read):
    assert in_simplified(text) == read


def test_a_cantonese_address_corrected_in_one_message_is_proposed_as_corrected():
    user, conversation = demo_customer("chen")

    reply = run_turn(user.pk, conversation, "幫我將地址改做廣州市天河區體育東路100號，唔係唔係，應該係200號先啱").reply
    done = run_turn(user.pk, conversation, "確認").reply

    assert "體育東路200號" in reply and "100號" not in reply, reply
    assert done.startswith("已完成") and "體育東路200號" in done, done
