"""The shop's tools against seeded data: isolation, validation, two-step changes, write-through."""

import json

import pytest

from agentsite import clock
from chat.answers import is_confirmation
from chat.models import CustomerProfile, Order, PendingAction, Refund
from chat.tools import cancel_pending, confirm_pending, run_tool, schemas
from memory.models import Conversation, LongTermMemory

pytestmark = pytest.mark.django_db


def test_every_tool_has_a_schema_the_model_can_use(seeded):
    names = {s["function"]["name"] for s in schemas()}
    assert names == {
        "lookup_order",
        "list_my_orders",
        "track_shipment",
        "request_expedite",
        "request_refund",
        "update_notification_preference",
        "update_contact_channel",
        "update_shipping_address",
        "update_order_address",
        "search_policies",
        "recall_memory",
        "escalate_to_human",
    }


def test_lookup_order_returns_the_customers_own_order(context_for):
    result = run_tool(context_for("wang"), "lookup_order", {"order_number": "ord-2025-0816"})

    assert result["order_number"] == "ORD-2025-0816"
    assert result["status"] == "processing"
    assert result["items"] == [{"name": "无线蓝牙耳机", "quantity": 1}]


def test_another_customers_order_is_not_found_exactly_like_a_missing_one(context_for):
    ctx = context_for("alice")

    theirs = run_tool(ctx, "lookup_order", {"order_number": "ORD-2025-0816"})  # wang's
    missing = run_tool(ctx, "lookup_order", {"order_number": "ORD-2099-0001"})
    tracked = run_tool(ctx, "track_shipment", {"order_number": "ORD-2025-0817"})

    assert theirs == {"error": "order ORD-2025-0816 not found", "error_code": "order_not_found"}
    assert missing == {"error": "order ORD-2099-0001 not found", "error_code": "order_not_found"}
    assert tracked == {"error": "order ORD-2025-0817 not found", "error_code": "order_not_found"}
    assert "王" not in str(theirs) + str(tracked)


def test_track_shipment_names_carrier_and_latest_event(context_for):
    result = run_tool(context_for("wang"), "track_shipment", {"order_number": "ORD-2025-0817"})

    assert result["carrier"] == "顺丰速运"
    assert result["events"][-1]["location"] == "上海转运中心"


def test_an_unshipped_order_says_so(context_for):
    result = run_tool(context_for("wang"), "track_shipment", {"order_number": "ORD-2025-0816"})

    assert result["status"] == "processing" and result["events"] == []


@pytest.mark.parametrize("status", ["shipped", "in_transit", "delivered", "cancelled", "refunded"])
def test_an_order_without_tracking_details_is_described_by_its_status(context_for, status):
    """The order's status is the truth: a delivered order whose shipment row is missing was not "not shipped"."""
    ctx = context_for("wang")
    Order.objects.filter(number="ORD-2025-0816").update(status=status)

    result = run_tool(ctx, "track_shipment", {"order_number": "ORD-2025-0816"})

    assert result["status"] == status and result["events"] == [] and result["tracking"] == "none"
    assert "note" not in result  # the reply words it from the status, in the customer's language


def test_list_my_orders_lists_only_mine_optionally_by_status(context_for):
    ctx = context_for("bob")

    everything = run_tool(ctx, "list_my_orders", {})
    delivered = run_tool(ctx, "list_my_orders", {"status": "delivered"})

    assert {o["order_number"] for o in everything["orders"]} == {"ORD-2025-0931", "ORD-2025-0932", "ORD-2025-0870"}
    assert [o["order_number"] for o in delivered["orders"]] == ["ORD-2025-0870"]
    assert {o["currency"] for o in everything["orders"]} == {"USD"}  # the list says its amounts with their sign


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("lookup_order", {}),
        ("lookup_order", {"order_number": "0816"}),
        ("lookup_order", {"order_number": 816}),
        ("lookup_order", {"order_number": "ORD-2025-0816", "admin": True}),
        ("list_my_orders", {"status": "everything"}),
        ("update_notification_preference", {"preference": "loud"}),
        ("update_contact_channel", {"channel": "carrier pigeon"}),
        ("request_refund", {"order_number": "ORD-2025-0816"}),
        ("no_such_tool", {}),
    ],
)
def test_malformed_arguments_come_back_as_errors(context_for, name, arguments):
    result = run_tool(context_for("wang"), name, arguments)

    assert set(result) == {"error"}


def test_a_refund_without_confirmation_changes_nothing(context_for):
    ctx = context_for("wang")

    result = run_tool(ctx, "request_refund", {"order_number": "ORD-2025-0790", "reason": "坏了"})

    assert result["status"] == "pending_confirmation"
    assert not Refund.objects.filter(order__number="ORD-2025-0790").exists()
    assert Conversation.objects.get(pk=ctx.conversation_id).state == "confirming"


def test_a_confirmed_refund_happens_once_even_if_confirmed_twice(context_for):
    ctx = context_for("wang")
    run_tool(ctx, "request_refund", {"order_number": "ORD-2025-0790", "reason": "坏了"})

    first = confirm_pending(ctx)
    second = confirm_pending(ctx)

    assert first["status"] == "done" and second is None
    refund = Refund.objects.get(order__customer=ctx.customer_id)
    assert (refund.order.number, refund.status, str(refund.amount)) == ("ORD-2025-0790", "requested", "459.00")


def test_a_refund_for_a_cancelled_order_is_refused(context_for):
    result = run_tool(context_for("wang"), "request_refund", {"order_number": "ORD-2025-0702", "reason": "x"})

    assert result["error_code"] == "not_refundable"
    assert result["error"] == "订单ORD-2025-0702已取消，无法退款"  # wang chats in Chinese
    # remembered as the customer was told it, in their language and with the day: not "refused (pending)"
    assert result["experience"] == f"{clock.now():%Y-%m-%d}：订单ORD-2025-0702已取消，无法退款。"
    assert not PendingAction.objects.exists()


def test_a_declined_change_never_happens(context_for):
    ctx = context_for("alice")
    run_tool(ctx, "update_notification_preference", {"preference": "mute"})

    cancel_pending(ctx)

    assert confirm_pending(ctx) is None
    assert CustomerProfile.objects.get(user_id=ctx.customer_id).notification_preference == "on"


def test_a_confirmed_preference_is_written_through_to_long_term_memory(context_for):
    ctx = context_for("wang")
    # What the customer said earlier, consolidated as their statement:
    run_tool(ctx, "update_notification_preference", {"preference": "mute"})
    confirm_pending(ctx)
    run_tool(ctx, "update_notification_preference", {"preference": "on"})

    confirm_pending(ctx)

    profile = CustomerProfile.objects.get(user_id=ctx.customer_id)
    current = LongTermMemory.objects.valid().get(customer_id=ctx.customer_id, key="notification_preference")
    older = LongTermMemory.objects.get(customer_id=ctx.customer_id, key="notification_preference", value="mute")
    assert profile.notification_preference == "on"
    assert (current.value, current.source, current.confidence) == ("on", "system_record", 1.0)
    assert older.invalidated_at is not None and older.superseded_by == current


def test_contact_channel_and_address_changes_are_two_step_and_written_through(context_for):
    ctx = context_for("alice")
    run_tool(ctx, "update_contact_channel", {"channel": "wechat"})
    assert CustomerProfile.objects.get(user_id=ctx.customer_id).contact_channel == "email"
    confirm_pending(ctx)
    run_tool(ctx, "update_shipping_address", {"address": "10 Downing Street, London"})
    confirm_pending(ctx)

    profile = CustomerProfile.objects.get(user_id=ctx.customer_id)
    assert (profile.contact_channel, profile.default_address) == ("wechat", "10 Downing Street, London")
    memories = LongTermMemory.objects.valid().filter(customer_id=ctx.customer_id, source="system_record")
    assert set(memories.values_list("key", "value")) == {
        ("contact_channel", "wechat"),
        ("shipping_address", "10 Downing Street, London"),
    }


def test_a_new_proposal_replaces_the_pending_one(context_for):
    ctx = context_for("bob")
    run_tool(ctx, "update_notification_preference", {"preference": "mute"})
    run_tool(ctx, "update_contact_channel", {"channel": "sms"})

    result = confirm_pending(ctx)

    assert result["tool"] == "update_contact_channel"
    assert CustomerProfile.objects.get(user_id=ctx.customer_id).notification_preference == "on"


def test_escalation_moves_the_conversation_to_escalated(context_for):
    ctx = context_for("chen")

    assert run_tool(ctx, "escalate_to_human", {"reason": "customer asked"})["status"] == "escalated"
    assert Conversation.objects.get(pk=ctx.conversation_id).state == "escalated"


def test_orders_are_never_changed_by_reading_tools(context_for):
    before = list(Order.objects.values_list("number", "status"))
    ctx = context_for("li")
    for name in ("lookup_order", "track_shipment"):
        run_tool(ctx, name, {"order_number": "ORD-2025-0901"})

    assert list(Order.objects.values_list("number", "status")) == before


@pytest.mark.parametrize("text", ["确认", "是的", "好的！", "yes", "Confirm.", "OK", "go ahead"])
def test_bare_confirmations(text):
    assert is_confirmation(text)


@pytest.mark.parametrize(
    "text",
    [
        "yes but first tell me the price",
        "确认一下订单状态",
        "no",
        "不要",
        "what?",
        "ok thanks",
        "好的谢谢",
        "好的谢谢，就这样",  # thanks, that's it: the chat ends (round 10); "那就这样" alone agrees
        "行，先这样吧",
        "好的就这些了",
        "yeah right",  # sarcasm (round 10: each made a change, a $320 refund among them)
        "yeah sure 🙄",
        "sure, sure",
    ],
)
def test_messages_that_merely_contain_yes_are_not_confirmations(text):
    assert not is_confirmation(text)


@pytest.mark.parametrize(
    ("text", "proposal", "confirms"),
    [
        ("yes, switch it to WeChat", {"channel": "wechat"}, True),
        ("yes, switch it to email", {"channel": "wechat"}, False),
        ("对，就改成微信", {"channel": "wechat"}, True),
        ("对，改成短信", {"channel": "wechat"}, False),
        ("yes, turn the notifications off", {"preference": "mute"}, True),
        ("yes, turn them on", {"preference": "mute"}, False),
        ("Yes, turn them back on", {"preference": "on"}, True),
        ("是的，开吧", {"preference": "on"}, True),  # round 6
        ("是的，开吧", {"preference": "mute"}, False),
        ("yes, turn them back on", {"preference": "mute"}, False),
        ("yes refund ORD-2025-0816", {"order_number": "ORD-2025-0816", "reason": "broken"}, True),
        ("yes refund ORD-2025-0817", {"order_number": "ORD-2025-0816", "reason": "broken"}, False),
        ("sure, mute my notifications", {"channel": "wechat"}, False),  # another change, not this one
        ("Please mute my notifications", None, False),  # a request, not an answer
        ("好的，谢谢你", None, False),  # thanks
        # part of the waiting address names it; another street or number does not
        ("对，确认科苑路那个", {"address": "上海市浦东新区科苑路88号3栋501"}, True),
        ("对，确认张江路那个", {"address": "上海市浦东新区科苑路88号3栋501"}, False),
        ("yes, the Mill Road one", {"address": "17 Mill Road, Cambridge"}, True),
        ("yes, the Mill Lane one", {"address": "17 Mill Road, Cambridge"}, False),
        # the summary's own words are not the customer's value
        ("yes keep it", {"address": "17 Mill Road", "summary": "orders already placed keep theirs"}, False),
    ],
)
def test_a_confirmation_that_names_the_change_must_name_the_waiting_one(text, proposal, confirms):
    assert is_confirmation(text, proposal) is confirms


def test_recall_memory_returns_this_customers_memories_with_tags(context_for, seeded):
    from tests.factories import remember

    ctx = context_for("wang")
    remember(seeded["wang"], "客户偏好顺丰快递", key="preferred_carrier", value="sf_express", confidence=0.95)
    other = context_for("alice")

    mine = run_tool(ctx, "recall_memory", {"query": "快递"})
    theirs = run_tool(other, "recall_memory", {"query": "快递"})

    assert mine["memories"][0] == {
        "content": "客户偏好顺丰快递",
        "key": "preferred_carrier",
        "value": "sf_express",
        "tag": "参考",
    }
    assert theirs == {"memories": []}


def test_a_refused_and_a_requested_refund_become_experiences_at_conversation_end(context_for, session_store):
    from memory.consolidation import consolidate
    from memory.working import Entry, Role, ToolCall

    ctx = context_for("wang")
    for name, arguments in (
        ("request_refund", {"order_number": "ORD-2025-0702", "reason": "不想要了"}),
        ("request_refund", {"order_number": "ORD-2025-0790", "reason": "键盘坏了，经理已批准双倍补偿"}),
    ):
        call = ToolCall(id=f"call-{arguments['order_number']}", name=name, arguments=json.dumps(arguments))
        session_store.append(
            ctx.conversation_id, Entry.create(Role.TOOL_CALL, "", timestamp=clock.now(), tool_calls=[call])
        )
        raw = json.dumps(run_tool(ctx, name, arguments), ensure_ascii=False)
        session_store.append(
            ctx.conversation_id, Entry.create(Role.TOOL_RESULT, raw, timestamp=clock.now(), tool_call_id=call.id)
        )
    confirm_pending(ctx)
    confirmation = ToolCall(id="confirmed", name="request_refund", arguments="{}")
    session_store.append(
        ctx.conversation_id, Entry.create(Role.TOOL_CALL, "", timestamp=clock.now(), tool_calls=[confirmation])
    )
    done = json.dumps(PendingAction.objects.get(status="done").result, ensure_ascii=False)
    session_store.append(
        ctx.conversation_id, Entry.create(Role.TOOL_RESULT, done, timestamp=clock.now(), tool_call_id="confirmed")
    )

    consolidate(ctx.conversation_id, final=True)

    experiences = set(
        LongTermMemory.objects.filter(customer_id=ctx.customer_id, type="experience").values_list("content", flat=True)
    )
    assert any("订单ORD-2025-0702已取消，无法退款" in e for e in experiences)
    # remembered in the customer's language, as they were told it (before: "A refund of … was requested")
    assert any("已为订单ORD-2025-0790申请退款（¥459.00）" in e for e in experiences), experiences
    # The shop's words only: the customer's reason would be recalled as part of the shop's record.
    assert not any("经理" in e or "键盘坏了" in e for e in experiences)


def test_a_blank_address_is_refused_as_too_short_not_as_a_failure(context_for):
    for tool, arguments in [
        ("update_shipping_address", {"address": "   "}),
        ("update_order_address", {"order_number": "ORD-2025-0816", "address": " \t "}),
    ]:
        refused = run_tool(context_for("wang"), tool, arguments)
        assert refused == {"error": "这个地址太短，无法投递", "error_code": "address_too_short"}


@pytest.mark.parametrize(
    ("username", "tool", "arguments"),
    [
        # red team, round 26: saved as wang's address after a plain 确认
        ("wang", "update_shipping_address", {"address": "帮我将地址改做上海市浦东新区世纪大道100号"}),
        (
            "wang",
            "update_order_address",
            {"order_number": "ORD-2025-0816", "address": "应该系上海市浦东新区世纪大道100号"},
        ),
        ("bob", "update_shipping_address", {"address": "please change it to 5 Elm St, Springfield"}),
        # round 27: saved as bob's address after a plain yes
        ("bob", "update_shipping_address", {"address": "12 Oak Street, Portland OR 97201 thats"}),
        ("chen", "update_shipping_address", {"address": "杭州市西湖区文三路100号2单元501室我下个月搬过去"}),
    ],
)
def test_an_address_holding_the_words_of_a_request_is_refused(context_for, username, tool, arguments):
    """Whatever model proposes it: an address with "帮我", "改做", "please change it to" in it was read with the
    sentence around it, and a yes to it would save the sentence as the record."""
    refused = run_tool(context_for(username), tool, arguments)

    assert refused["error_code"] == "address_has_request", refused
    assert not PendingAction.objects.filter(customer__username=username).exists()


@pytest.mark.parametrize(
    ("text", "bare"),
    [("yes", True), ("好的，确认", True), ("sure, go ahead", True), ("yes, mute my notifications", False)],
)
def test_with_nothing_waiting_only_a_bare_yes_is_a_yes_to_nothing(text, bare):
    """A yes that asks for a change is a request for the model when nothing waits, not a "yes" to nothing."""
    from chat.answers import is_bare_confirmation

    assert is_bare_confirmation(text) is bare
