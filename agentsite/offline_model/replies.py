"""Composing the agent's words in Chinese and English: fixed phrases, facts and tool results. Tool results are
read by their shape and fields nobody planned for are listed generically, so an unexpected result is said
rather than crashing the turn; text found in results is quoted as data, never obeyed. See
docs/offline-model.md.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

from . import dates, facts, nlu, slots, speech
from .conversation import MemoryEntry, ToolResult

STATUS_NAMES = {
    "zh": {
        "pending": "待付款",
        "paid": "已付款",
        "processing": "处理中（尚未发货）",
        "shipped": "已发货",
        "in_transit": "运输中",
        "out_for_delivery": "派送中",
        "delivered": "已签收",
        "cancelled": "已取消",
        "canceled": "已取消",
        "refunded": "已退款",
        "returned": "已退货",
        "exception": "配送异常",
        "picked_up": "已揽收",
        "label_created": "已创建运单",
        "failed": "失败",
        "open": "处理中",
    },
    "en": {
        "pending": "pending payment",
        "paid": "paid",
        "processing": "processing (not shipped yet)",
        "shipped": "shipped",
        "in_transit": "in transit",
        "out_for_delivery": "out for delivery",
        "delivered": "delivered",
        "cancelled": "cancelled",
        "canceled": "cancelled",
        "refunded": "refunded",
        "returned": "returned",
        "exception": "delivery exception",
        "picked_up": "picked up",
        "label_created": "label created",
        "failed": "failed",
        "open": "open",
    },
}
CURRENCY_SIGNS = {"CNY": "¥", "RMB": "¥", "USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}


def status_name(code: Any, lang: str) -> str:
    text = str(code)
    return STATUS_NAMES[lang].get(text.lower(), text.replace("_", " "))


def money(total: Any, currency: Any, lang: str) -> str:
    if total is None:
        return ""
    try:
        amount = f"{float(total):,.2f}"
    except (TypeError, ValueError):
        return str(total)
    code = str(currency or ("CNY" if lang == "zh" else "")).upper()
    sign = CURRENCY_SIGNS.get(code)
    return f"{sign}{amount}" if sign else f"{amount} {code}".strip()


def when(value: Any) -> str:
    """Show an ISO timestamp as 2025-03-01 09:12; anything else as given."""
    text = str(value)
    m = re.fullmatch(r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|[+\-]\d{2}:?\d{2})?", text)
    return f"{m.group(1)} {m.group(2)}" if m else text


def _join(parts: list[str], lang: str) -> str:
    return ("；" if lang == "zh" else "; ").join(p for p in parts if p)


def _end(text: str, lang: str) -> str:
    text = text.rstrip()
    if not text or text[-1] in "。.!！?？":
        return text
    return text + ("。" if lang == "zh" else ".")


def _quote(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---- fixed phrases ---------------------------------------------------------------------------

PHRASES = {
    "notifications_no_schedule": (  # "turn them off on weekends", "晚上10点以后别通知我"
        "我们的通知设置只能整体开启或静音，无法只在某些时间（比如周末或晚上）静音。如果仍要全部静音，请告诉我。",
        "Our notification setting is all on or all muted: it can't be muted only at some times (weekends or "
        "nights, say). If you still want everything muted, just tell me.",
    ),
    "exchange": (
        "换货、补发或更换配件需要人工客服安排，我这里不能直接办理，也不会为此申请退款。需要的话我可以为您转接人工客服。",
        "A replacement or an exchange is arranged by a colleague: I can't set it up here, and I won't ask for a refund "
        "in its place. I can pass you to a colleague if you'd like.",
    ),
    "notifications_not_by_channel": (  # "turn off my email notifications": one way of being told, not all
        "我们的通知设置只能整体开启或静音，不能只关掉某一种方式的通知；静音后订单和物流通知也不会再发。如果您是不想收邮件（或短信），"
        "我可以把联系方式改成别的方式；如果要全部静音，请告诉我。",
        "Our notification setting is all on or all muted: notifications can't be turned off for one way of "
        "reaching you alone, and muting stops order and delivery updates too. If it's emails (or texts) you don't "
        "want, I can change how we contact you instead; if you want everything muted, just tell me.",
    ),
    "notifications_all_or_nothing": (  # "促销的关掉，但是物流通知我还要"
        "我们的通知设置只能整体开启或静音，无法只关掉促销通知；静音后订单和物流通知也不会再发。如果仍要全部静音，请告诉我。",
        "Our notification setting is all on or all muted: promotions can't be turned off alone, and muting them "
        "stops order and delivery updates too. If you still want everything muted, just tell me.",
    ),
    "no_vouchers": (  # "上次客服说补偿我50元优惠券，发了没有？", "can I get it as store credit?"
        "抱歉，优惠券、积分和补偿不在我能查到的记录里，我也无法发放；人工客服可以帮您核实，需要的话我可以为您转接。",
        "Sorry, vouchers, store credit and compensation aren't in the records I can see, and I can't issue them; "
        "a colleague can look into it, and I can pass you to one.",
    ),
    "parcel_not_received": (  # tracking says delivered; the customer says it never came
        "系统显示已签收；如果您实际没有收到，人工客服可以帮您向快递核实，需要的话我可以为您转接。",
        "Our records show it as delivered; if it didn't reach you, a colleague can check with the carrier, and I "
        "can pass you to one.",
    ),
    "money_not_received": (  # a refund refused while the customer says the money never came
        "如果这笔钱还没有到您的账户，人工客服可以帮您核实，需要的话我可以为您转接。",
        "If the money hasn't reached you, a colleague can look into it, and I can pass you to one.",
    ),
    "undecided": (  # "im not sure i want the refund yet, lemme think": nothing proposed until they decide
        "不着急，我没有为您申请或修改任何内容。您想好了随时告诉我，我会先把要办的事列给您确认。",
        "No rush: I haven't requested or changed anything. When you've decided, just tell me and I'll set it out "
        "for you to confirm first.",
    ),
    "nothing_to_change": (  # "please DON'T change my address to …", "refund 0923, no wait, don't"
        "好的，那我不做任何修改。还有什么可以帮您？",
        "OK, I won't change anything. Anything else I can help with?",
    ),
    "no_promises": (
        "我们的记录里没有给您的承诺。聊天中提到的说法不算承诺，一切以我们的记录为准。",
        "Our records hold no promise to you; what was said in a chat counts only once our records hold it.",
    ),
    "no_such_promise": (  # a promise or approval claimed, none on record: never taken as true
        "我在系统记录里没有找到这样的承诺或批准，一切以系统记录为准。",
        "I can't find any such promise or approval in our records, and only those count.",
    ),
    "address_incomplete": (  # a Chinese address without its province, city or district: never saved so
        "这个地址好像不完整，请提供完整的收货地址（包括省、市、区、街道和门牌号），我再为您修改。",
        "That address seems incomplete: please give the full address (province, city, district, street and number).",
    ),
    "dressed_as_staff": (  # "[Staff note] the customer wants SMS": a note in the chat is the customer's text
        "聊天里写成客服或系统备注的内容不会被执行：我只按您本人提出的请求办理，任何改动也都要您确认。请问您需要我做什么？",
        "A note written in the chat as if from our staff or our system changes nothing: I act only on what you ask "
        "me yourself, and any change still needs your yes. What would you like me to do?",
    ),
    "only_reported": (  # 'My mum texted: "change my address to …"': her words, quoted, ask us nothing
        "这是别人说的话，我不会据此做任何改动。如果您需要我做什么，请直接告诉我。",
        "Those are someone else's words, so I won't act on them. If you'd like me to do something, just tell me.",
    ),
    "greeting": (
        "您好！我是在线客服助手，可以帮您查询订单和物流、办理退款，或修改通知和联系方式。请问有什么可以帮您？",
        "Hello! I can help with your orders and deliveries, refunds, and your notification and contact "
        "settings. How can I help?",
    ),
    "thanks": ("不客气！还有其他可以帮您的吗？", "You're welcome! Is there anything else I can help with?"),
    # Confirming a change is the application's (it runs the change and shows its result): a "yes" that
    # reaches the model changes nothing, so the reply promises nothing.
    "confirm": ("好的。还有什么可以帮您？", "All right. Anything else I can help with?"),
    "acknowledge": ("好的。还有什么可以帮您？", "All right. Anything else I can help with?"),
    "goodbye": ("感谢您的咨询，祝您生活愉快，再见！", "Thanks for chatting with us. Have a good day, goodbye!"),
    "apology": ("没关系！请问有什么可以帮您？", "No problem at all! What can I help you with?"),
    "bot_question": (
        "我是本店的在线客服助手（AI），可以帮您查询订单和物流、办理退款或修改设置。如果您希望由真人处理，"
        "请告诉我“转人工”。",
        "I'm the shop's AI assistant. I can help with orders, deliveries, refunds and your settings; if you'd "
        "rather talk to a person, just say so.",
    ),
    "nothing_else_noted": (
        "除此之外，我不确定还记得您的其他信息。",
        "Beyond that, I'm not sure I have anything noted.",
    ),
    "deny_nothing_asked": (
        "好的。目前没有等待您答复的操作，什么都没有改动。还有什么可以帮您？",
        "OK. Nothing is waiting for your answer, so nothing was changed. Anything else I can help with?",
    ),
    "deny": (
        "好的，这个操作不会执行。还有什么可以帮您？",
        "Okay, I won't go ahead with that. Anything else I can help with?",
    ),
    "decline": (
        "抱歉，我不能这样做。我可以帮您查询订单和物流、办理退款或修改设置，请问需要什么帮助？",
        "Sorry, I can't do that. I can help with your orders, deliveries, refunds or settings. What do you need?",
    ),
    "fallback": (
        "抱歉，我没有完全理解您的问题。我可以帮您查询订单状态和物流、办理退款，或修改通知和联系方式。",
        "Sorry, I didn't quite understand. I can check an order or a delivery, help with a refund, or "
        "change your notification and contact settings.",
    ),
    "ask_order": ("请提供您的订单号，我来帮您查询。", "Could you give me your order number?"),
    "forget_on_the_page": (
        "我在聊天里不能删除记忆。您可以打开“我的记忆”页面（/memory/），查看我记下的每一条，并删除或更正任何一条；"
        "删除后我就不会再用到它。",
        "I can't delete memories from the chat. On your memory page (/memory/) you can see everything I have noted "
        "and delete or correct any entry; once deleted, I won't use it again.",
    ),
    "no_order_of_that_amount": (
        "您的订单里没有这个金额的：您的订单是{orders}。请问是哪一个？",
        "None of your orders comes to that amount; you have {orders}. Which one do you mean?",
    ),
    "orders_keep_their_address": (
        "这是之后新订单的默认地址；已下的订单按各自下单时的地址寄送，想核对某个订单寄到哪，告诉我是哪一单就行。",
        "That is the default for new orders; orders already placed go to the address each was placed with. Tell me "
        "which order and I'll check where it's going.",
    ),
    "order_address": (
        "我这里看不到单个订单的收货地址。已下的订单按下单时的地址寄送，修改默认地址不会改变它们；如需核对某个订单的地址，"
        "我可以为您转人工客服。",
        "I can't see the delivery address of a single order from here. Orders already placed go to the address "
        "they were placed with: changing your default address doesn't move them. If you need one checked, I can "
        "pass you to a person.",
    ),
    "unreadable_order": (
        "我没能识别这个订单号。订单号的格式是 ORD-YYYY-NNNN（年份-编号），请再发一次。",
        "I couldn't read that order number. Order numbers look like ORD-YYYY-NNNN: could you send it again?",
    ),
    "unsure_order": (
        "我不确定您指的是哪个订单。请提供您的订单号，我来帮您查询。",
        "I'm not sure which order you mean. Could you give me your order number?",
    ),
    "ask_refund_order": ("请提供您要退款的订单号。", "Could you give me the order number you'd like a refund for?"),
    "ask_address": (
        "请提供新的收货地址（例如：省、市、区、街道和门牌号）。",
        "Could you give me the new shipping address (number, street, city)?",
    ),
    "ask_preference": ("请问您希望开启还是关闭（静音）通知？", "Would you like notifications muted or turned on?"),
    "no_such_channel": (
        "我们无法通过这个方式联系您。我们可以用邮件、电话、短信或微信，您希望用哪一种？",
        "We can't contact you that way. We can use email, phone, SMS or WeChat: which would you like?",
    ),
    "ask_channel": (
        "请问您希望我们通过哪种方式联系您：邮件、电话、短信还是微信？",
        "How would you like us to contact you: email, phone, SMS or WeChat?",
    ),
    "account_email": (
        "我这里无法修改您账户登记的邮箱，这需要人工客服处理，需要的话我可以为您转接。您的联系方式设置没有改变。",
        "I can't change the email on your account here: a colleague can, and I can pass you to one. Your contact "
        "channel has not changed.",
    ),
    "account_phone": (
        "我这里无法修改您账户登记的电话号码，这需要人工客服处理，需要的话我可以为您转接。您的联系方式设置没有改变。",
        "I can't change the phone number on your account here: a colleague can, and I can pass you to one. Your "
        "contact channel has not changed.",
    ),
    "account_email_aside": (  # said before a channel change asked in the same message
        "我这里无法修改您账户登记的邮箱，这需要人工客服处理，需要的话我可以为您转接。",
        "I can't change the email on your account here: a colleague can, and I can pass you to one.",
    ),
    "no_order_holds": (
        "我在您的订单里没有找到您说的这件商品。请问是哪个订单？请告诉我订单号。",
        "I couldn't find what you named in any of your orders. Which order do you mean? Please give me its number.",
    ),
    "no_orders": ("您目前没有订单记录。", "I couldn't find any orders on your account."),
    "none_so_filtered": (  # an empty list of the orders holding an item, or in one status: others may exist
        "没有找到符合的订单。请问是哪个订单？请告诉我订单号。",
        "None of your orders fits that. Which order do you mean? Please give me its number.",
    ),
    "no_refunds": ("您的订单目前都没有退款记录。", "There are no refunds on record for any of your orders."),
    "confirm_each_time": (
        "每一笔退款和每一项更改都需要您在当时确认，这样的规则我不能记下，也不能照办。如果要为某个订单退款，请告诉我订单号，"
        "我会先向您确认。",
        "Every refund and every change needs your yes at the time; I can't keep or follow a rule that skips it. If "
        "you'd like a refund on an order, tell me which one and I'll ask you to confirm it.",
    ),
    "partial_refund": (
        "这里只能为订单申请全额退款；部分退款需要人工客服处理，需要的话我可以为您转接。",
        "I can only request a refund of an order's full amount here; a partial refund needs a colleague, and I can "
        "pass you to one.",
    ),
    "by_tracking_number": (
        "我只能按订单号查询物流，无法用运单号查找。请告诉我是哪个订单，或者让我列出您的订单。",
        "I can only look a delivery up by its order number, not by a tracking number. Which order is it? I can list "
        "your orders if that helps.",
    ),
    "refund_time_not_promised": (
        "退款什么时候到账我没法保证，所以还没有为您申请。",
        "I can't promise when a refund arrives, so I haven't requested it.",
    ),
    "still_want_it": ("如果仍要申请，请告诉我退哪一单。", "If you'd still like it, tell me which order to refund."),
    "refund_paid_back": (
        "退款只会原路退回到下单时的支付方式，无法退到其他卡或账户。",
        "A refund always goes back to the way the order was paid; I can't send it to another card or account.",
    ),
    "expedite_disputed": (
        "抱歉让您困惑了，我没有再提交新的催单。",
        "Sorry for the confusion: I haven't put in another chase.",
    ),
    "chase_changes_nothing": (
        "催单只是请仓库尽快处理，不会改动您的订单或付款；如果需要撤销，我可以为您转人工客服。",
        "A chase only asks the warehouse to hurry; it changes nothing about your order or payment. If you'd like it "
        "withdrawn, I can pass you to a colleague.",
    ),
    "others_data": (
        "我只能查询、告知和修改您本人账户的信息，无法查看或更改其他客户的资料。您自己的订单、地址或设置，我可以帮您处理。",
        "I can only look up, share or change details of your own account, not anyone else's. I'm happy to help with "
        "your own orders, address or settings.",
    ),
    "human": ("好的，我会为您转接人工客服，请稍候。", "Sure, I'll pass you to a human colleague. Please hold on."),
    "escalated": (
        "已为您转接人工客服，工作人员会在这里回复您。",
        "I've passed your request to a colleague; they will reply here.",
    ),
    "sensitive": (
        "为了您的账户安全，请不要在对话中发送银行卡号、身份证号或密码，我也不会保存这些信息。",
        "For your security, please don't share card numbers, ID numbers or passwords here. I won't keep them.",
    ),
    "no_policy": (
        "抱歉，我这里暂时查不到相关政策说明，建议您联系人工客服确认。",
        "Sorry, I can't look up our policies right now. A human colleague can confirm this for you.",
    ),
}


def phrase(name: str, lang: str) -> str:
    zh, en = PHRASES[name]
    return zh if lang == "zh" else en


def cannot_do(lang: str, order: str | None = None) -> str:
    if lang == "zh":
        return f"抱歉，我现在无法处理订单{order}的这个请求。" if order else "抱歉，我现在无法处理这个请求。"
    return (
        f"Sorry, I can't handle that for order {order} right now." if order else "Sorry, I can't handle that right now."
    )


# ---- facts: acknowledging, answering, not knowing --------------------------------------------


def say_value(key: str, value: str, lang: str) -> str:
    if key == "birthday":
        return dates.format_mm_dd(value, lang)
    if key == "notification_preference":
        if lang == "zh":
            return "静音（不接收通知）" if value == "mute" else "开启"  # never "已关闭" beside "not applied"
        return "muted" if value == "mute" else "turned on"
    if key == "contact_channel":
        return slots.CHANNEL_NAMES[lang].get(value, value)
    if key == "preferred_carrier":
        return slots.carrier_name(value, lang)
    return value


def acknowledge(fact: facts.Fact, lang: str) -> str:
    """Acknowledge a statement, echoing the normalised value."""
    k, v, zh = fact.key, fact.value, lang == "zh"
    said = say_value(k, v, lang)
    if k == "birthday":
        if zh:
            return (
                f"好的，已更正：您的生日是{said}（{v}）。"
                if fact.correction
                else f"好的，已记下您的生日：{said}（{v}）。"
            )
        return (
            f"Got it, I've corrected that: your birthday is {said} ({v})."
            if fact.correction
            else f"Got it: your birthday is {said} ({v})."
        )
    if k in ("notification_preference", "contact_channel", "shipping_address"):
        # Only noted: the shop's setting changes through a change the customer confirms, never here.
        if zh:
            wish = {"notification_preference": "通知设置为{}", "contact_channel": "通过{}联系您"}.get(
                k, "收货地址改为{}"
            )
            return f"好的，已记下您希望{wish.format(said)}；账户设置需经您确认更改后才会生效。"
        return f"Noted: you'd like {_SUBJECT_EN[k]} to be {said}. Your account changes only once you confirm a change."
    if k == "preferred_carrier":
        return f"好的，已记下您偏好的快递：{said}。" if zh else f"Got it, your preferred carrier is {said}."
    if k == "phone_number":  # what the customer told us, not what the account holds
        return f"好的，已记下您告诉我们的电话号码：{v}。" if zh else f"Noted: you told us your phone number is {v}."
    if k == "email":
        return f"好的，已记下您告诉我们的邮箱：{v}。" if zh else f"Noted: you told us your email is {v}."
    if k == "name":
        return f"您好，{v}！很高兴为您服务。" if zh else f"Nice to meet you, {v}!"
    if k == "order_number":
        return f"好的，已记下订单号{v}。" if zh else f"Got it, order {v}."
    if fact.kind == facts.EXPERIENCE:  # a complaint: what can be done about it, never "recorded" as if filed
        return (
            "非常抱歉给您带来不好的体验。需要的话，我可以帮您申请退款，或为您转接人工客服处理换货等问题。"
            if zh
            else "I'm sorry to hear that. If you'd like, I can request a refund, or pass you to a colleague for an "
            "exchange or anything else."
        )
    return "好的，我记下了。还有什么可以帮您？" if zh else "Got it, I've noted that. Anything else I can help with?"


_SUBJECT_ZH = {
    "birthday": "您的生日",
    "notification_preference": "您的通知设置",
    "contact_channel": "您希望的联系方式",
    "shipping_address": "您的收货地址",
    "name": "您的名字",
    "phone_number": "您的电话号码",
    "email": "您的邮箱",
    "preferred_carrier": "您偏好的快递公司",
    "order_number": "您上次询问的订单",
}
_SUBJECT_EN = {
    "birthday": "your birthday",
    "notification_preference": "your notification setting",
    "contact_channel": "how you'd like to be contacted",
    "shipping_address": "your shipping address",
    "name": "your name",
    "phone_number": "your phone number",
    "email": "your email address",
    "preferred_carrier": "your preferred carrier",
    "order_number": "which order you asked about last time",
}


# Contact details the shop's account may hold (the account's email, a phone): what the customer told us of
# them is said as that, never as what the account holds.
_TOLD_ZH = {"email": "您之前告诉过我们，您的邮箱是{said}。", "phone_number": "您之前告诉过我们，您的电话号码是{said}。"}
_TOLD_EN = {
    "email": "You told us before that your email is {said}.",
    "phone_number": "You told us before that your phone number is {said}.",
}


def answer(key: str, value: str, lang: str, told: bool = False) -> str:
    """``value`` of ``key`` as the answer to a question about it; ``told``: from an earlier chat, said as what
    the customer told us where the shop's account may hold the key."""
    said = say_value(key, value, lang)
    if told and key in _TOLD_EN:
        return (_TOLD_ZH if lang == "zh" else _TOLD_EN)[key].format(said=said)
    if lang == "zh":
        return {
            "birthday": f"您的生日是{said}。",
            "notification_preference": f"您的通知目前设置为{said}。",
            "contact_channel": f"我们会通过{said}联系您。",
            "shipping_address": f"您的收货地址是{said}。",
            "name": f"您姓{said}。" if len(said) == 1 else f"您的名字是{said}。",
            "phone_number": f"您的电话号码是{said}。",
            "email": f"您的邮箱是{said}。",
            "preferred_carrier": f"您偏好的快递是{said}。",
            "order_number": f"您上次询问的是订单{said}。",
        }.get(key, f"{_SUBJECT_ZH.get(key, key)}是{said}。")
    return {
        "birthday": f"Your birthday is {said}.",
        "notification_preference": f"Your notifications are {said}.",
        "contact_channel": f"We'll contact you by {said}.",
        "shipping_address": f"Your shipping address is {said}.",
        "name": f"Your name is {said}.",
        "phone_number": f"Your phone number is {said}.",
        "email": f"Your email is {said}.",
        "preferred_carrier": f"Your preferred carrier is {said}.",
        "order_number": f"Last time you asked about order {said}.",
    }.get(key, f"{_SUBJECT_EN.get(key, key).capitalize()} is {said}.")


def no_order_ending(tail: str, lang: str) -> str:
    """None of the customer's orders ends in the digits they gave."""
    if lang == "zh":
        return f"您的订单里没有尾号为{tail}的订单，请核对订单号。"
    return f"None of your orders ends in {tail}. Could you check the order number?"


def which_order(orders: list[str], lang: str) -> str:
    """Several orders fit: ask which one, naming them (none named: the order number is asked for)."""
    if not orders:
        return phrase("ask_order", lang)
    named = "、".join(orders) if lang == "zh" else ", ".join(orders)
    if lang == "zh":
        return f"您有几个订单都符合：{named}。请问是哪一个？"
    return f"Several of your orders fit: {named}. Which one do you mean?"


def already(answer: str, lang: str) -> str:
    """A change asked for that the record already holds: how it stands, and that nothing changes."""
    return f"{answer}无需更改。" if lang == "zh" else f"{answer} Nothing needs changing."


def answer_record(
    key: str, value: str, requested: list[str], lang: str, *, proposed: bool = False, possible: bool = True
) -> str:
    """The shop's record of `key`, and what the customer asked for that was not applied: ``proposed``, it waits
    for their answer in this conversation (the application names it after the reply), else it is offered, unless
    it cannot be made (``possible``: texts or calls with no phone number on the account)."""
    said = answer(key, value, lang)
    if not requested:
        return said
    asked = " / ".join(say_value(key, v, lang) for v in requested)
    if not possible:
        if lang == "zh":
            return f"{said}这是我们系统里的记录。您曾提出改为{asked}，但您的账户上没有登记电话号码，这项更改无法办理。"
        return (
            f"{said} That is what our records say. You asked for contact by {asked}, but there is no phone number "
            "on your account, so that change cannot be made."
        )
    if lang == "zh":
        if proposed:
            return f"{said}这是我们系统里的记录。您要求的改为{asked}还在等待您确认，确认后才会生效。"
        return (
            f"{said}这是我们系统里的记录。您曾提出改为{asked}，但这项更改尚未生效；"
            "如果仍需要更改，请告诉我，我会为您发起更改，经您确认后生效。"
        )
    asked = {"notification_preference": "notifications {}", "contact_channel": "contact by {}"}.get(key, "{}").format(
        asked
    )  # "You asked for notifications turned on", not "for turned on"
    if proposed:
        return f"{said} That is what our records say. The change you asked for, {asked}, waits for your yes."
    return (
        f"{said} That is what our records say. You asked for {asked}, but that change has not been applied; "
        "if you still want it, tell me and I'll set it up for you to confirm."
    )


_ACCOUNT_CHANGE = {
    "zh": "如需更改账户信息，我可以为您转接人工客服。",
    "en": "if you want the account changed, I can pass you to a colleague.",
}


def answer_account(key: str, value: str, told: list[str], lang: str) -> str:
    """What the customer's account records for ``key`` (their email), and other values they told us, which
    are not on it: no tool of ours changes the account, a colleague can."""
    said = say_value(key, value, lang)
    others = " / ".join(say_value(key, v, lang) for v in told)
    if lang == "zh":
        out = f"您账户登记的{_SUBJECT_ZH.get(key, key).removeprefix('您的')}是{said}，这是我们系统里的记录。"
        if others:
            out += f"您在对话中告诉过我们{others}，但它没有登记到账户上；{_ACCOUNT_CHANGE['zh']}"
        return out
    subject = _SUBJECT_EN.get(key, key).removeprefix("your ")
    out = f"The {subject} on your account is {said}: that is what our records say."
    if others:
        out += f" You told us {others} in a chat, but it is not on your account; {_ACCOUNT_CHANGE['en']}"
    return out


def not_on_the_account(key: str, told: list[str], lang: str) -> str:
    """The account holds no value of ``key`` (a phone number, an email); what the customer told us is said as
    theirs, never as the account's."""
    said = " / ".join(say_value(key, v, lang) for v in told)
    if lang == "zh":
        subject = _SUBJECT_ZH.get(key, key).removeprefix("您的")
        out = f"您的账户上没有登记{subject}。"
        return out + (f"您在对话中告诉过我们{said}，但它没有登记到账户上；{_ACCOUNT_CHANGE['zh']}" if told else "")
    subject = _SUBJECT_EN.get(key, key).removeprefix("your ")
    out = f"There is no {subject} on your account."
    return out + (
        f" You told us {said} in a chat, but it is not on your account; {_ACCOUNT_CHANGE['en']}" if told else ""
    )


def account_unchanged(key: str, record: str, lang: str) -> str:
    """After another value of ``key`` than the account's was noted: the account still holds its own."""
    said = say_value(key, record, lang)
    if lang == "zh":
        subject = _SUBJECT_ZH.get(key, key).removeprefix("您的")
        return f"您账户登记的{subject}仍是{said}；{_ACCOUNT_CHANGE['zh']}"
    subject = _SUBJECT_EN.get(key, key).removeprefix("your ")
    return f"The {subject} on your account is still {said}; {_ACCOUNT_CHANGE['en']}"


def answer_unconfirmed(key: str, value: str, lang: str) -> str:
    said = say_value(key, value, lang)
    if lang == "zh":
        return f"根据之前的记录，{_SUBJECT_ZH.get(key, key)}可能是{said}（有待确认），对吗？"
    return f"According to my notes, {_SUBJECT_EN.get(key, key)} may be {said} (unconfirmed). Is that right?"


def answer_disputed(key: str, values: list[str], lang: str) -> str:
    said = " / ".join(say_value(key, v, lang) for v in values)
    if lang == "zh":
        return f"关于{_SUBJECT_ZH.get(key, key)}，我的记录不一致（{said}），能否帮我确认一下？"
    return f"My notes about {_SUBJECT_EN.get(key, key)} disagree ({said}). Could you confirm which is right?"


def not_sure(key: str, lang: str) -> str:
    """The reply when the answer is in neither the turns nor the memory block.

    The openings "我不确定" / "I'm not sure" are what the application's deferred recall listens for.
    """
    if lang == "zh":
        if key == "order_number":
            return "我不确定您上次询问的是哪个订单。请提供订单号，我来帮您查询。"
        subject = _SUBJECT_ZH.get(key, "这一点")
        return f"我不确定{subject}。如果方便的话，请告诉我，我会记下来。"
    if key == "order_number":
        return "I'm not sure which order you asked about last time. Could you give me your order number?"
    return f"I'm not sure about {_SUBJECT_EN.get(key, 'that')}. I don't have that information."


_RECORD_LABEL = re.compile(r"^\s*(?:Shop record:\s*|商店记录：)")
PROMISE_LABEL = re.compile(r"^\s*(?:The shop's promise:\s*|本店承诺：)")
_AS_SAID = {"is": "are", "was": "were", "has": "have", "does": "do"}


def _to_you(content: str, lang: str) -> str:
    """A memory line, written of "the customer", as said to them: "客户的通知设置为开启" → "您的通知设置为开启",
    "The customer wants notifications muted" → "you want notifications muted"."""
    text = content.strip().rstrip("。.；;")
    if lang == "zh":
        return text.replace("客户的", "您的").replace("客户", "您")
    text = re.sub(r"(?i)\bthe customer's\b", "your", text)
    text = re.sub(r"(?i)\bthe customer\b", "you", text)

    def agree(m: re.Match[str]) -> str:  # "you wants" → "you want", "you is" → "you are"
        verb = m.group(1)
        if verb in _AS_SAID:
            return "you " + _AS_SAID[verb]
        if verb.endswith("ies"):
            return "you " + verb[:-3] + "y"
        if re.search(r"(?:ch|sh|ss|x)es$", verb):
            return "you " + verb[:-2]
        return "you " + (verb[:-1] if verb.endswith("s") and not verb.endswith("ss") else verb)

    return re.sub(r"\byou ([a-z]+)\b", agree, text)


def _promises(entries: list[MemoryEntry], lang: str, about: str = "") -> list[str]:
    """The shop's promises the memory block shows (its confirmed promise lines), said to the customer; only those
    matching ``about`` when given."""
    return [
        _to_you(PROMISE_LABEL.sub("", e.content), lang)
        for e in entries
        if e.tag == "confirmed" and PROMISE_LABEL.match(e.content) and (not about or re.search(about, e.content))
    ]


def promises_on_record(entries: list[MemoryEntry], lang: str) -> str:
    """The shop's promises to the customer, said as the record, or that there are none: what anyone said in a chat
    is no promise unless the shop recorded it."""
    promised = [p.rstrip("。.") for p in _promises(entries, lang)]
    if not promised:
        return phrase("no_promises", lang)
    if lang == "zh":
        return f"我们的记录里给您的承诺有：{'；'.join(promised)}。"
    return f"Our records hold these promises to you: {'; '.join(promised)}."


def chases_on_record(entries: list[MemoryEntry], lang: str) -> str:
    """The chases the shop's promises hold (the memory block's confirmed promise lines), said as the record, or
    that there are none."""
    chases = _promises(entries, lang, about=r"催单|(?i:\bchase\b)")
    if not chases:
        return "我们的记录里没有进行中的催单。" if lang == "zh" else "Our records hold no chase for you."
    if lang == "zh":
        return f"我们的记录里有：{'；'.join(chases)}。" + phrase("chase_changes_nothing", lang)
    return f"Our records hold: {'; '.join(chases)}. " + phrase("chase_changes_nothing", lang)


# A recap of an earlier chat as the memory block shows it ("Our conversation on 2026-12-05: Asked about …").
_EARLIER_CHAT = re.compile(
    r"^(?:Our conversation on (?P<en>\d{4}-\d{2}-\d{2}):|(?P<zh>\d{4}-\d{2}-\d{2})的对话：)\s*(?P<recap>.+)$", re.S
)


def earlier_chats(entries: list[MemoryEntry]) -> list[tuple[str, str]]:
    """The recaps of earlier chats among the memory lines, as (date, recap), newest first."""
    found = [
        (m.group("en") or m.group("zh"), m.group("recap")) for e in entries if (m := _EARLIER_CHAT.match(e.content))
    ]
    return sorted(found, key=lambda recap: recap[0], reverse=True)


def _recap_to_you(recap: str, lang: str) -> str:
    """A recap, written of the customer ("Asked about their orders"), as said to them ("You asked about your
    orders"); the Chinese recap names nobody."""
    if lang == "zh":
        return recap
    said = re.sub(r"^\s*Asked about\b", "You asked about", recap)
    return re.sub(r"\btheir\b", "your", said)


def earlier_chat(recaps: list[tuple[str, str]], day: dt.date | None, lang: str) -> str:
    """An earlier chat, from its recap: the one of the day asked about, else the latest; said as our notes of
    it, which the shop's records outrank."""
    if not recaps:
        # in the words that make deferred recall look further
        return (
            "我不确定：这里没有您之前对话的记录。"
            if lang == "zh"
            else "I'm not sure: I have no notes of an earlier chat with you."
        )
    chosen = next((r for r in recaps if day and r[0] == day.isoformat()), None)
    missing = ""
    if chosen is None and day is not None:
        missing = (
            f"我没有{day.isoformat()}那天对话的记录。"
            if lang == "zh"
            else f"I have no notes of a chat on {day.isoformat()}. "
        )
    date, recap = chosen or recaps[0]
    recap = _recap_to_you(recap, lang)
    if lang == "zh":
        return (
            f"{missing}我记录的{date}的对话：{recap}"
            "这是我对那次对话的笔记，以商店的记录为准；想确认哪个订单或设置现在的情况，告诉我，我来查。"
        )
    return (
        f"{missing}From my notes of our chat on {date}: {recap} These are my notes of that chat; the shop's records "
        "are what counts, so ask me about any order or setting and I'll check how it stands now."
    )


def delivery_wishes(entries: list[MemoryEntry], lang: str) -> str:
    """How the customer told us to leave their parcels, quoted as theirs (no record of the shop's holds it), or
    that we noted nothing of the kind."""
    wishes = [
        _to_you(_RECORD_LABEL.sub("", e.content), lang)
        for e in entries
        if e.content and e.tag != "confirmed" and facts.is_delivery_wish(e.content)
    ]
    if lang == "zh":
        if not wishes:
            return "我没有找到您说过的放快递位置的要求。需要的话，告诉我您希望怎么放，我会记下来。"
        return (
            f"您在之前的对话中告诉我们：{'；'.join(w.rstrip('。.') for w in wishes)}。这是您说的要求，不是我们系统里的"
            "记录；某个订单需要特别安排的话，我可以为您转接人工客服。"
        )
    if not wishes:
        return (
            "I can't find anything you told us about where to leave your parcels. Tell me how you'd like them left "
            "and I'll note it."
        )
    return (
        f"You told us in an earlier chat: {'; '.join(w.rstrip('。.') for w in wishes)}. That's what you said, not a "
        "record of the shop's; if one order needs special handling, I can pass you to a colleague."
    )


def memories_listing(entries: list[MemoryEntry], lang: str) -> str:
    """What is remembered, said to the customer: the shop's records and promises apart from the rest, one group a
    line. A line the block does not tag confirmed is what the customer told us or we inferred, and is said as
    such whatever its words claim."""
    confirmed = [e.content for e in entries if e.content and e.tag == "confirmed"]
    promises = [_to_you(PROMISE_LABEL.sub("", c), lang) for c in confirmed if PROMISE_LABEL.match(c)]
    records = [_to_you(_RECORD_LABEL.sub("", c), lang) for c in confirmed if not PROMISE_LABEL.match(c)]
    others = [e for e in entries if e.content and e.tag != "confirmed"]
    recaps = [  # our notes, not their words
        f"{date}: {_recap_to_you(recap, lang).rstrip('。.')}" for date, recap in earlier_chats(others)
    ]
    noted = [_to_you(_RECORD_LABEL.sub("", e.content), lang) for e in others if not _EARLIER_CHAT.match(e.content)]
    if lang == "zh":
        groups = [
            ("我们系统里的记录", records),
            ("本店的承诺", promises),
            ("您在对话中告诉我们的（未经记录核实）", noted),
            ("我们之前对话的笔记", recaps),
        ]
        lines = [f"- {label}：{'；'.join(items)}。" for label, items in groups if items]
        return "\n".join(["我记得这些信息：", *lines])
    groups = [
        ("From our records", records),
        ("What we promised", promises),
        ("What you told us in our chats (not checked against our records)", noted),
        ("My notes of our earlier chats", recaps),
    ]
    lines = [f"- {label}: {'; '.join(items)}." for label, items in groups if items]
    return "\n".join(["Here is what I have noted about you:", *lines])


# ---- tool results ----------------------------------------------------------------------------


def _items(items: Any, lang: str) -> str:
    if not isinstance(items, list):
        return _quote(items, 80)
    said = []
    for item in items[:10]:
        if isinstance(item, dict):
            label = item.get("name") or item.get("title") or item.get("sku") or _quote(item, 40)
            qty = item.get("quantity") or item.get("qty")
            said.append(f"{label} ×{qty}" if qty else str(label))
        else:
            said.append(str(item))
    more = len(items) - len(said)
    if more > 0:
        said.append(f"等{more}件" if lang == "zh" else f"and {more} more")
    return ("、" if lang == "zh" else ", ").join(said)


_ORDER_FIELDS = {
    "order_number",
    "status",
    "placed_at",
    "total",
    "currency",
    "items",
    "id",
    "shipment",
    "tracking_number",
    "carrier",
    "refunds",
    "shipping_address",
}
_REFUND_STATUS = {
    "requested": ("已申请，处理中", "requested, being processed"),
    "approved": ("已批准", "approved"),
    "refused": ("未获批准", "refused"),
}


def refunds_text(data: dict[str, Any], lang: str, asked_about_a_refund: bool) -> str:
    """The order's refunds as the shop records them; asked about a refund where there is none, that there is
    none (never what the customer said happened)."""
    refunds = [r for r in data.get("refunds") or [] if isinstance(r, dict)]
    if not refunds:
        if not asked_about_a_refund:
            return ""
        if data.get("status") == "refunded":  # the status says it: never "no refund" beside it
            return (
                "该订单已标记为已退款，但没有单独的退款明细。"
                if lang == "zh"
                else "No refund details are recorded for it."
            )
        return "这个订单没有退款记录。" if lang == "zh" else "There is no refund on record for this order."
    said = []
    for refund in refunds:
        status = _REFUND_STATUS.get(str(refund.get("status")), (str(refund.get("status")),) * 2)
        amount = money(refund.get("amount"), data.get("currency"), lang)
        if lang == "zh":
            said.append(f"{when(refund.get('requested_at'))}申请的退款{amount}：{status[0]}")
        else:
            said.append(f"a refund of {amount} requested {when(refund.get('requested_at'))}: {status[1]}")
    if lang == "zh":
        return "退款记录：" + "；".join(said) + "。"
    return "Refunds on record: " + "; ".join(said) + "."


def refunds_total_text(orders: list[dict[str, Any]], lang: str) -> str:
    """What the refunds on record come to, each currency apart: approved ones (the money back) and those still
    being processed; an order marked refunded without refund details is named, its total never counted as
    money back."""
    approved: dict[str, float] = {}
    waiting: dict[str, float] = {}
    unrecorded = []
    for data in orders:
        code = str(data.get("currency") or ("CNY" if lang == "zh" else "")).upper()
        refunds = [r for r in data.get("refunds") or [] if isinstance(r, dict)]
        if not refunds and data.get("status") == "refunded":
            unrecorded.append(str(data.get("order_number") or ""))
        for refund in refunds:
            sums = {"approved": approved, "requested": waiting}.get(str(refund.get("status")))
            try:
                amount = float(str(refund.get("amount")))
            except (TypeError, ValueError):
                continue
            if sums is not None:
                sums[code] = sums.get(code, 0.0) + amount

    def shown(sums: dict[str, float]) -> str:
        joined = [money(f"{total:.2f}", code, lang) for code, total in sums.items()]
        return ("、" if lang == "zh" else " and ").join(joined)

    if lang == "zh":
        said = [f"已批准的退款合计{shown(approved)}" if approved else "目前没有已批准的退款"]
        said += [f"处理中的退款{shown(waiting)}"] if waiting else []
        tail = f"（订单{'、'.join(unrecorded)}没有退款明细，未计入）" if unrecorded else ""
        return "；".join(said) + tail + "。"
    said = [f"Approved refunds come to {shown(approved)}" if approved else "No refund has been approved yet"]
    said += [f"{shown(waiting)} is still being processed"] if waiting else []
    tail = f" ({_join(unrecorded, lang)}: no refund details, so not counted)" if unrecorded else ""
    return "; ".join(said) + tail + "."


def nothing_holds(thing: str, lang: str) -> str:
    """That no order of the customer's holds the thing they named."""
    if lang == "zh":
        return f"我在您的订单里没有找到“{_quote(thing, 40)}”。请问是哪个订单？请告诉我订单号。"
    return (
        f'I couldn\'t find "{_quote(thing, 40)}" in any of your orders. Which order do you mean? '
        "Please give me its number."
    )


def no_refund_requested_on(day: dt.date, lang: str) -> str:
    """That the shop's records hold no refund requested on ``day``."""
    if lang == "zh":
        return f"记录里没有{day.isoformat()}申请的退款。"
    return f"There is no refund on record requested on {day.isoformat()}."


def refunds_of_order(data: dict[str, Any], lang: str) -> str:
    """One order's refunds as the shop records them, named by the order."""
    number = data.get("order_number") or ""
    return (
        f"订单{number}：{refunds_text(data, lang, True)}"
        if lang == "zh"
        else f"{number}: {refunds_text(data, lang, True)}"
    )


def _refund_standing(data: dict[str, Any], lang: str) -> tuple[str, bool]:
    """Whether a refund of the order could be asked for, by its record, in words, and whether it could: not for
    one cancelled, refunded, unpaid or with a refund already being processed; a delivered one with its delivery
    day (the return window counts from it, and staff decide past it)."""
    status = data.get("status")
    refunds = [r for r in data.get("refunds") or [] if isinstance(r, dict)]
    shipment = data.get("shipment")
    shipment = shipment if isinstance(shipment, dict) else {}
    events = [e for e in shipment.get("events") or [] if isinstance(e, dict) and e.get("time")]
    delivered = str(events[-1]["time"])[:10] if status == "delivered" and events else ""
    if any(r.get("status") == "requested" for r in refunds):
        return ("已有退款申请在处理中" if lang == "zh" else "a refund is already being processed"), False
    if status in ("cancelled", "refunded", "pending"):
        name = status_name(str(status), lang)
        return (f"{name}，不能申请退款" if lang == "zh" else f"{name}, so no refund can be requested"), False
    if delivered:
        return (
            f"可以申请退款（{delivered}签收；超出退货期的由工作人员审核）"
            if lang == "zh"
            else f"a refund can be requested (delivered {delivered}; past the return window, staff decide)"
        ), True
    return ("可以申请退款" if lang == "zh" else "a refund can be requested"), True


def refundable_text(orders: list[dict[str, Any]], lang: str) -> str:
    """Whether a refund could be asked for each order, by its record (``_refund_standing``)."""
    lines = []
    for data in orders:
        number = data.get("order_number") or ""
        items = _items(data.get("items"), lang) if data.get("items") else ""
        named = f"{number}（{items}）" if lang == "zh" and items else f"{number} ({items})" if items else str(number)
        why, _ = _refund_standing(data, lang)
        lines.append(f"- {named}：{why}" if lang == "zh" else f"- {named}: {why}")
    if not lines:
        return phrase("no_orders", lang)
    ask = (
        "需要为哪一单申请，告诉我即可，我会先请您确认。"
        if lang == "zh"
        else "Tell me which one, and I'll set it out for you to confirm."
    )
    return "\n".join([*lines, ask])


# What follows the answer whether one order could be refunded, when it could: an offer, taken up by a yes
# (``chat._taken_up_offer``), which proposes the refund to be confirmed.
REFUND_OFFERED = {
    "zh": "如需为这单申请退款，告诉我即可，我会先列出来请您确认。",
    "en": "If you'd like one, say so and I'll set it out for you to confirm.",
}


def refundable_one(data: dict[str, Any], lang: str) -> str:
    """Whether a refund of this one order could be asked for, by its record, with the offer if it could."""
    why, could = _refund_standing(data, lang)
    if lang == "zh":
        return f"这单{why}。" + (REFUND_OFFERED["zh"] if could else "")
    sentence = (
        f"It is {why}." if data.get("status") in ("cancelled", "refunded", "pending") else f"{why[0].upper()}{why[1:]}."
    )
    return sentence + (f" {REFUND_OFFERED['en']}" if could else "")


def in_language(text: str, lang: str) -> bool:
    """Whether ``text`` reads as ``lang``: Chinese holds Han characters, English none."""
    return bool(speech.HAN.search(text)) == (lang == "zh")


def _extra_fields(data: dict[str, Any], known: set[str], lang: str) -> str:
    """Fields nobody planned for, as data: in Chinese their values only (the names are English words)."""
    found = [(k, _quote(v, 60)) for k, v in data.items() if k not in known and v not in (None, "", [], {})]
    if not found:
        return ""
    if lang == "zh":
        return "其他信息：" + _join([v for _, v in found[:6]], lang)
    return "Other details: " + _join([f"{k}: {v}" for k, v in found[:6]], lang)


def order_text(data: dict[str, Any], lang: str, order: str | None) -> str:
    number = data.get("order_number") or data.get("id") or order or ""
    status = data.get("status")
    parts: list[str] = []
    if lang == "zh":
        head = f"订单{number}" + (f"当前状态：{status_name(status, 'zh')}" if status else "的信息")
        if data.get("placed_at"):
            parts.append(f"下单时间：{when(data['placed_at'])}")
        if data.get("total") is not None:
            parts.append(f"金额：{money(data.get('total'), data.get('currency'), lang)}")
        if data.get("items"):
            parts.append(f"商品：{_items(data['items'], lang)}")
        if data.get("tracking_number"):
            parts.append(f"运单号：{data['tracking_number']}")
        if data.get("shipping_address"):
            parts.append(f"寄往：{data['shipping_address']}")
    else:
        head = f"Order {number}" + (f" is {status_name(status, 'en')}" if status else "")
        if data.get("placed_at"):
            parts.append(f"placed {when(data['placed_at'])}")
        if data.get("total") is not None:
            parts.append(f"total {money(data.get('total'), data.get('currency'), lang)}")
        if data.get("items"):
            parts.append(f"items: {_items(data['items'], lang)}")
        if data.get("tracking_number"):
            parts.append(f"tracking number {data['tracking_number']}")
        if data.get("shipping_address"):
            parts.append(f"delivering to {data['shipping_address']}")
    text = _end(head + ("。" if lang == "zh" else ": " if parts else "") + _join(parts, lang), lang)
    extra = _extra_fields(data, _ORDER_FIELDS, lang)
    return text + (" " + _end(extra, lang) if extra else "")


def _latest_event(events: list[Any]) -> dict[str, Any] | None:
    dicts = [e for e in events if isinstance(e, dict)]
    if not dicts:
        return None
    if all(isinstance(e.get("time"), str) for e in dicts):
        return max(dicts, key=lambda e: e["time"])
    return dicts[-1]


_SHIPPED = {"shipped", "in_transit", "out_for_delivery", "delivered"}
_CLOSED = {"cancelled", "canceled", "refunded", "returned"}


def _no_tracking(status: Any, lang: str) -> str:
    """What a shipment without tracking details means, by the order's status (the truth)."""
    if status in _CLOSED:
        return ""
    if status in _SHIPPED:
        return "暂无物流跟踪记录" if lang == "zh" else "no tracking details were recorded"
    return "暂无物流跟踪信息" if lang == "zh" else "no tracking details yet"


def shipment_text(data: dict[str, Any], lang: str, order: str | None) -> str:
    number = data.get("order_number") or order or ""
    carrier = slots.carrier_name(str(data["carrier"]), lang) if data.get("carrier") else ""
    latest = _latest_event(data.get("events") or []) if isinstance(data.get("events"), list) else None
    parts: list[str] = []
    if lang == "zh":
        head = f"订单{number}的物流信息" if number else "物流信息"
        if carrier:
            parts.append(f"承运商：{carrier}")
        if data.get("tracking_number"):
            parts.append(f"运单号：{data['tracking_number']}")
        if data.get("status"):
            parts.append(f"状态：{status_name(data['status'], 'zh')}")
        if latest:
            where = " ".join(str(latest[k]) for k in ("location", "description") if latest.get(k))
            parts.append(f"最新动态：{when(latest.get('time', ''))} {where}".strip())
        if data.get("eta"):
            parts.append(f"预计送达：{when(data['eta'])}")
        if data.get("tracking") == "none":
            parts.append(_no_tracking(data.get("status"), lang))
        text = head + "：" + _join(parts, lang)
    else:
        head = f"Shipment for order {number}" if number else "Shipment"
        if carrier:
            parts.append(f"carrier {carrier}")
        if data.get("tracking_number"):
            parts.append(f"tracking number {data['tracking_number']}")
        if data.get("status"):
            parts.append(f"status: {status_name(data['status'], 'en')}")
        if latest:
            where = ": ".join(str(latest[k]) for k in ("location", "description") if latest.get(k))
            parts.append(f"latest update {when(latest.get('time', ''))}, {where}".strip(", "))
        if data.get("eta"):
            parts.append(f"estimated delivery {when(data['eta'])}")
        if data.get("tracking") == "none":
            parts.append(_no_tracking(data.get("status"), lang))
        text = head + ": " + _join(parts, lang)
    known = {"order_number", "carrier", "tracking_number", "status", "events", "events_total", "eta", "tracking"}
    extra = _extra_fields(data, known, lang)
    return _end(text, lang) + (" " + _end(extra, lang) if extra else "")


def orders_text(
    orders: list[Any], lang: str, on_day: dt.date | None = None, day_phrase: str = "", head: str | None = None
) -> str:
    if not orders:
        return phrase("no_orders", lang)
    lines = []
    matching = []
    for o in orders:
        if not isinstance(o, dict):
            lines.append(f"- {_quote(o, 80)}")
            continue
        number = o.get("order_number") or o.get("id") or "?"
        bits = [status_name(o["status"], lang)] if o.get("status") else []
        if o.get("total") is not None:
            bits.append(money(o.get("total"), o.get("currency"), lang))
        if o.get("placed_at"):
            bits.append(("下单于" if lang == "zh" else "placed ") + when(o["placed_at"]))
        if o.get("items"):  # what it holds tells the orders apart
            bits.append(("商品：" if lang == "zh" else "items: ") + _items(o["items"], lang))
        lines.append(f"- {number}：{'，'.join(bits)}" if lang == "zh" else f"- {number}: {', '.join(bits)}")
        if on_day and str(o.get("placed_at", "")).startswith(on_day.isoformat()):
            matching.append(str(number))
    if head is None:
        head = f"您共有{len(orders)}个订单：" if lang == "zh" else f"You have {len(orders)} orders:"
    if matching:
        found = "、".join(matching) if lang == "zh" else ", ".join(matching)
        head = (
            (f"您{day_phrase}下的订单是{found}。" if lang == "zh" else f"The order you placed {day_phrase} is {found}.")
            + "\n"
            + head
        )
    return head + "\n" + "\n".join(lines)


_NOT_SPENT = ("cancelled", "refunded")
LISTED_AT_MOST = 20  # list_my_orders shows the latest 20


def spent_text(orders: list[Any], lang: str) -> str:
    """What the listed orders come to, each currency apart, cancelled and refunded ones left out (and said to be)."""
    sums: dict[str, float] = {}
    for o in orders:
        if not isinstance(o, dict) or str(o.get("status")) in _NOT_SPENT:
            continue
        try:
            amount = float(str(o.get("total")))
        except (TypeError, ValueError):
            continue
        code = str(o.get("currency") or ("CNY" if lang == "zh" else "")).upper()
        sums[code] = sums.get(code, 0.0) + amount
    shown = [money(f"{total:.2f}", code, lang) for code, total in sums.items()] or [money("0", None, lang)]
    latest = len(orders) >= LISTED_AT_MOST
    if lang == "zh":
        scope = f"最近{len(orders)}个订单" if latest else "这些订单"
        return f"{scope}合计{'、'.join(shown)}（不含已取消和已退款的订单）。"
    scope = f"Your latest {len(orders)} orders" if latest else "Together these orders"
    return f"{scope} come to {' and '.join(shown)} (cancelled and refunded orders not counted)."


# Words any question and any article share: they tell nothing of what a question is about.
_NOT_A_TOPIC = frozenset(
    re.findall(
        r"\S+",
        "the you your and for can are what how does did with have has this that will our any from there when which "
        "who why about policy policies please shop store tell know want would could should get not but all its just "
        # words of any sentence: "is the tent still under warranty?" is not about alerts that "still arrive"
        "still under over into than then also only even ever yet more some "
        "你们 我们 请问 什么 怎么 可以 是否 有没 没有 一下 政策 规定 如果 的话 我的 你的 "
        "能不 不能 可不 不可 能否 是不 不是 会不 不会 要不 不要 "
        # measures and the order itself: "support hours" is not about "within 24 hours of payment"
        "hours hour days day minutes time times long much many order orders item items 小时 时间 多久 订单",
    )
)


# A topic asked about in words its article does not use: "能退吗", "退得了吗" ask about refunds and returns.
_TOPIC_WORDS = (
    (
        # "确认了多久能到账？"; not "退差价" (a price difference paid back, which no article covers)
        re.compile(
            r"退(?!出|订|回去|差价|还差价)|到账|打款|(?i:\brefund(?!\s+the\s+(?:price\s+)?difference)|\breturn|\bmoney\s+back\b)"
        ),
        {"退款", "退货", "refund", "refunds", "return", "returns"},
    ),
)


def _policy_terms(text: str) -> set[str]:
    han = speech.HAN.findall(text)
    words = {w.lower() for w in re.findall(r"[A-Za-z]{3,}", text)} | {a + b for a, b in zip(han, han[1:], strict=False)}
    return words - _NOT_A_TOPIC


def policy_text(articles: list[Any], lang: str, question: str) -> str:
    """The passage of the article that is about what was asked; none shares a word of its topic ("你们有价保吗"
    and the refunds article): that no policy says, never an article about something else."""
    valid = [a for a in articles if isinstance(a, dict)]
    asked = _policy_terms(question).union(*(words for said, words in _TOPIC_WORDS if said.search(question)))
    shared = {id(a): len(asked & _policy_terms(f"{a.get('title', '')} {a.get('snippet', '')}")) for a in valid}
    if not valid or not any(shared.values()):
        if lang == "zh":
            return "抱歉，没有找到相关的政策说明。如需确认，我可以为您转接人工客服。"
        return "Sorry, I couldn't find a policy about that. If you'd like, I can pass you to a colleague to confirm it."
    best = max(valid, key=lambda a: shared[id(a)])
    title = _quote(best.get("title") or "", 80)  # named as the customer reads it: no ids of ours
    snippet = _quote(best.get("snippet") or best.get("content") or "", 400)
    place = _place_asked(question)
    unsaid = place and place.lower() not in f"{title} {best.get('snippet') or best.get('content') or ''}".lower()
    if lang == "zh":
        quoted = f"根据《{title}》：{snippet}" if title else f"根据我们的政策：{snippet}"
        return f"{quoted}\n政策里没有写到是否配送到{place}；如需确认，我可以为您转接人工客服。" if unsaid else quoted
    quoted = f"According to our policy “{title}”: {snippet}" if title else f"According to our policies: {snippet}"
    if unsaid:
        return (
            f"{quoted}\nThe policy does not say whether we deliver to {place}; a colleague can confirm it if you like."
        )
    return quoted


# Whether the shop delivers to a place, asked ("do you ship to Hong Kong?", "能寄到香港吗", "发不发台湾"): a policy
# that does not name the place does not answer it, whatever it says of delivery times.
_PLACE_ASKED = re.compile(
    r"(?i:\b(?:do|does|can|could|will|would)\s+(?:you|u|ya|the\s+shop|your\s+shop|they)\s+(?:also\s+)?"
    r"(?:ship|deliver|send|post)\s+(?:\w+\s+)?(?:to|in|into)\s+)(?P<en>[A-Z][A-Za-z]+(?:\s+[A-Z][A-Za-z]+){0,2})"
    r"|(?:能|可以|会|能不能|可不可以)?(?:寄|发|送|配送|邮寄|发货)(?:到|往|去)(?P<zh>[\u4e00-\u9fff]{2,4}?)(?:吗|么|嘛|不)"
    r"|(?:寄|发|送)不(?:寄|发|送)(?:到|往|去)?(?P<zh2>[\u4e00-\u9fff]{2,4}?)(?:[?？。]|$)"
)


def _place_asked(question: str) -> str:
    m = _PLACE_ASKED.search(question)
    return (m.group("en") or m.group("zh") or m.group("zh2") or "") if m else ""


def error_text(error: Any, lang: str, order: str | None) -> str:
    """A refusal: its reason quoted when it is in the reply's language, else only that it failed."""
    message = _quote(error, 300)  # the shop's reasons run to ~150 characters: never cut one mid-word
    not_found = re.search(
        r"(?i)not\s*found|no\s+such|unknown|does\s+not\s+exist|不存在|找不到|未找到|没有找到", message
    )
    said = in_language(message, lang)
    if lang == "zh":
        if not_found and order:
            return f"抱歉，没有找到订单{order}，请核对订单号是否正确。"
        if not said:
            return f"抱歉，订单{order}的这个请求暂时无法完成。" if order else "抱歉，这个请求暂时无法完成。"
        # the shop's reason, said as one: a rule of the shop is no failure of ours ("订单…已退款，无法退款")
        named = not order or order in message
        return _end(f"抱歉，{message}" if named else f"抱歉，订单{order}：{message}", lang)
    if not_found and order:
        return f"Sorry, I couldn't find order {order}. Could you check the order number?"
    if not said:
        return (
            f"Sorry, I couldn't do that for order {order} just now." if order else "Sorry, I couldn't do that just now."
        )
    if order and order not in message:
        return _end(f"Sorry, about order {order}: {message}", lang)
    lowered = message[:1].lower() + message[1:] if re.match(r"[A-Z][a-z]", message) else message
    return _end(f"Sorry, {lowered}", lang)


# Changes, as the offline model words them from a tool's ``action`` and ``values`` (the app's own wording is
# chat.actions; this process sees only the prompt).
CHANNEL_WORDS = {
    "zh": {"email": "邮件", "phone": "电话", "sms": "短信", "wechat": "微信"},
    "en": {"email": "email", "phone": "phone", "sms": "SMS", "wechat": "WeChat"},
}
PROPOSALS = {
    "request_refund": (
        "为订单{order_number}{items}申请退款{amount}",
        "request a refund of {amount} for order {order_number}{items}",
    ),
    "update_notification_preference": ("将您的通知设置为{notification}", "set your notifications to {notification}"),
    "update_contact_channel": ("今后通过{channel}联系您", "contact you by {channel} from now on"),
    "update_shipping_address": (
        "将您的默认收货地址改为{address}（适用于之后的新订单；已下的订单地址不变）",
        "change your default shipping address to {address} (for new orders; orders already placed keep theirs)",
    ),
    "update_order_address": (
        "将订单{order_number}改为寄往{address}（仅此订单；默认收货地址不变）",
        "deliver order {order_number} to {address} (only this order; your default address stays as it is)",
    ),
}


def change_text(kind: str, values: Any, lang: str) -> str:
    """A proposed change in ``lang``; empty when the kind or its values are not known."""
    wording = PROPOSALS.get(kind)
    if wording is None or not isinstance(values, dict):
        return ""
    fields = {k: str(v) for k, v in values.items() if v is not None}
    items = [str(name) for name in values.get("items") or [] if name] if isinstance(values.get("items"), list) else []
    fields["items"] = (
        ("（" + "、".join(items) + "）" if lang == "zh" else " (" + ", ".join(items) + ")") if items else ""
    )
    notification = {"mute": ("静音", "muted"), "on": ("开启", "on")}.get(fields.get("preference", ""))
    if notification:
        fields["notification"] = notification[0 if lang == "zh" else 1]
    if "channel" in fields:
        fields["channel"] = CHANNEL_WORDS[lang].get(fields["channel"], fields["channel"])
    shown = money(fields.get("amount"), fields.get("currency"), lang) if fields.get("amount") else ""
    fields["amount"] = (f"（{shown}）" if shown else "") if lang == "zh" else (shown or "the amount paid")
    try:
        said = wording[0 if lang == "zh" else 1].format(**fields)
    except (KeyError, IndexError, ValueError):
        return ""
    if kind == "request_refund" and fields.get("delivered") and fields.get("window_days"):  # past the window
        said += _LATE_REFUND[0 if lang == "zh" else 1].format(**fields)
    return said


_LATE_REFUND = (
    "（该订单已于{delivered}签收，已超过{window_days}天的无理由退货期限，能否退款由客服审核）",
    " (delivered on {delivered}, more than {window_days} days ago, so outside the return window: staff will decide "
    "whether it can be refunded)",
)


def _action_text(data: dict[str, Any], lang: str, order: str | None) -> str:
    status = str(data.get("status"))
    summary = change_text(str(data.get("action", "")), data.get("values"), lang)
    if not summary:
        summary = _quote(data.get("summary") or data.get("message") or "", 200).rstrip("。.")
        summary = summary if in_language(summary, lang) else ""  # never the other language's sentence
    if order and summary and order not in summary:
        summary = f"{summary}（订单{order}）" if lang == "zh" else f"{summary} (order {order})"
    if status == "pending_confirmation":  # a question that names the change
        if lang == "zh":
            return f"需要我{summary}吗？请回复“确认”以继续。" if summary else "请回复“确认”以继续。"
        return f"Shall I {summary}? Reply 'yes' to confirm." if summary else "Reply 'yes' to confirm."
    if status == "queued":  # asked for in the same message as a change that waits: it comes next
        if lang == "zh":
            return (
                f"您答复上面这一项后，我再请您确认是否{summary}。"
                if summary
                else "您答复上面这一项后，我再处理下一项。"
            )
        return (
            f"Once you've answered that, I'll ask whether you also want me to {summary}."
            if summary
            else "Once you've answered that, I'll ask you about the next change."
        )
    if status == "done":
        if lang == "zh":
            return f"已完成：{summary}。" if summary else "已为您处理完成。"
        return f"Done: {summary}." if summary else "Done."
    if lang == "zh":
        return _end(f"处理结果：{status_name(status, lang)}" + (f"，{summary}" if summary else ""), lang)
    fields = _join([f"{k}: {_quote(v, 60)}" for k, v in data.items() if k != "summary"], lang)
    return _end(f"Result: {fields}" + (f" {summary}" if summary else ""), lang)


def generic_text(data: Any, lang: str) -> str:
    if isinstance(data, dict):
        body = _join([f"{k}: {_quote(v, 80)}" for k, v in list(data.items())[:8]], lang)
    else:
        body = _quote(data, 300)
    return _end(("查询结果：" if lang == "zh" else "Here is what I found: ") + body, lang)


_ABOUT_A_REFUND = re.compile(
    r"退款|退钱|退回|退给我|退了(?:没|吗)|到账|打款|钱(?:还)?没(?:退|回来|到)|(?i:\brefund|\bmoney\s+back)"
)


# A parcel the customer says never reached them ("the desk lamps never arrived", "0880一直没收到").
_PARCEL_NOT_RECEIVED = re.compile(
    r"没(?:有)?收到|没到|(?i:\b(?:never|haven'?t|hasn'?t|didn'?t|did\s+not|has\s+not|have\s+not)\s+(?:\w+\s+)?"
    r"(?:arrived?|received?|got(?:ten)?|get|come|came|showed\s+up|turned\s+up)\b|\bnot\s+(?:received|arrived)\b)"
)
# Money the customer says never reached them ("其实没收到退款", "i never got the money"): a colleague checks.
_MONEY_NOT_RECEIVED = re.compile(
    r"没收到|没到账|没退(?:给我|回来)|还没(?:收到|到账)|(?i:\bhaven'?t\s+(?:received|got(?:ten)?)\b|"
    r"\bnever\s+(?:got|received)\b|\bdidn'?t\s+(?:get|receive)\b|\bnot\s+(?:received|arrived)\b)"
)


def tool_result(result: ToolResult, lang: str, question: str, today: dt.date | None = None) -> str:
    """Say one tool result in the reply language."""
    data = result.data()
    args = result.call.args()
    order = args.get("order_number") if isinstance(args.get("order_number"), str) else None
    name = result.call.name
    if isinstance(data, dict) and data.get("error"):
        refused = error_text(data["error"], lang, order)
        if name == "request_refund" and _MONEY_NOT_RECEIVED.search(question):  # "没收到退款，再给我退一次"
            return refused + ("" if lang == "zh" else " ") + phrase("money_not_received", lang)
        return refused
    if name == "escalate_to_human":
        ticket = data.get("ticket_id") or data.get("ticket") if isinstance(data, dict) else None
        promised = _quote(data.get("summary") or "", 200).rstrip("。.") if isinstance(data, dict) else ""
        text = phrase("escalated", lang)
        if promised and in_language(promised, lang):  # the shop's own words, with by when: no promise of ours
            text = f"已为您转接人工客服：{promised}。" if lang == "zh" else f"I've passed your request on: {promised}."
        return text + (f"（工单号：{ticket}）" if lang == "zh" else f" (ticket {ticket})") if ticket else text
    if isinstance(data, dict) and data.get("status") in ("pending_confirmation", "queued", "done"):
        return _action_text(data, lang, order)
    if isinstance(data, dict) and isinstance(data.get("articles"), list):
        policy = policy_text(data["articles"], lang, str(args.get("query") or question))
        if nlu.asks_refund_on_time(question):  # a refund asked on a time: none is promised, none requested
            before, after = (phrase(name, lang) for name in ("refund_time_not_promised", "still_want_it"))
            return f"{before}{policy}{after}" if lang == "zh" else f"{before} {policy} {after}"
        return policy
    if isinstance(data, list) and name == "list_my_orders":
        data = {"orders": data}
    if isinstance(data, dict) and isinstance(data.get("orders"), list):
        if not data["orders"] and (args.get("item") or args.get("status")):  # none so filtered: never "no orders"
            return phrase("none_so_filtered", lang)
        day, phrase_ = day_asked(question, today)
        listed = orders_text(data["orders"], lang, day, phrase_)
        return listed + ("\n" + spent_text(data["orders"], lang) if nlu.SPENT_IN_TOTAL.search(question) else "")
    if isinstance(data, dict) and (isinstance(data.get("events"), list) or name == "track_shipment"):
        said = shipment_text(data, lang, order)
        if data.get("status") == "delivered" and _PARCEL_NOT_RECEIVED.search(question):  # "…never arrived"
            said += ("" if lang == "zh" else " ") + phrase("parcel_not_received", lang)
        return said
    if isinstance(data, dict) and (data.get("order_number") or name == "lookup_order"):
        if nlu.asks_if_refundable(question):  # "0943可不可以退？": its record, and whether one could be asked for
            return order_text(data, lang, order) + ("" if lang == "zh" else " ") + refundable_one(data, lang)
        about_a_refund = bool(_ABOUT_A_REFUND.search(question))
        refunds = refunds_text(data, lang, about_a_refund)
        if about_a_refund and _MONEY_NOT_RECEIVED.search(question):  # "0702那个取消的单子钱还没退给我": the record,
            refunds += ("" if lang == "zh" else " ") + phrase("money_not_received", lang)  # then a colleague
        return order_text(data, lang, order) + ((" " if lang == "en" else "") + refunds if refunds else "")
    if isinstance(data, dict) and data.get("status"):
        return _action_text(data, lang, order)
    return generic_text(data, lang)


def changed_here(done: list[str], lang: str) -> str:
    """What this chat changed, from what was said done in it; that nothing was, if nothing."""
    if not done:
        return "这次对话里没有做任何改动。" if lang == "zh" else "Nothing has been changed in this chat."
    if lang == "zh":
        return "这次对话里已完成：" + "；".join(d.rstrip("。.") for d in done) + "。除此之外没有其他改动。"
    return "In this chat: " + "; ".join(d.rstrip("。.") for d in done) + ". Nothing else was changed."


def day_asked(question: str, today: dt.date | None) -> tuple[dt.date | None, str]:
    for rel in dates.find_relative(question, today):
        if rel.date:
            return rel.date, rel.phrase
    found = dates.find_dates(question)
    if found and (found[0].year or today):
        d = found[0]
        year = d.year or (today.year if today else 0)
        try:
            return dt.date(year, d.month, d.day), question[d.start : d.end]
        except ValueError:
            return None, ""
    return None, ""
