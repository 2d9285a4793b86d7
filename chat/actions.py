"""The words of a change, in the customer's language and to the customer: proposed, done or refused. Tools and
the shop hand back what a change is and why a request was refused; this module is the one place the app turns
those into sentences, so no English sentence travels from a tool into a Chinese reply and the agent always
says "you". The offline model keeps its own copy of the proposal wording, since it sees only the prompt. See
docs/offline-model.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

CHANNELS = {
    "zh": {"email": "邮件", "phone": "电话", "sms": "短信", "wechat": "微信"},
    "en": {"email": "email", "phone": "phone", "sms": "SMS", "wechat": "WeChat"},
}
NOTIFICATIONS = {"zh": {"mute": "静音", "on": "开启"}, "en": {"mute": "muted", "on": "on"}}

# What a change will do, as the confirmation question names it (the tool's values fill the fields).
PROPOSED = {
    "request_refund": {
        "zh": "为订单{order_number}{items}申请退款{amount}",
        "en": "request a refund of {amount} for order {order_number}{items}",
    },
    "update_notification_preference": {
        "zh": "将您的通知设置为{notification}",
        "en": "set your notifications to {notification}",
    },
    "update_contact_channel": {"zh": "今后通过{channel}联系您", "en": "contact you by {channel} from now on"},
    "update_shipping_address": {
        "zh": "将您的默认收货地址改为{address}（适用于之后的新订单；已下的订单地址不变）",
        "en": "change your default shipping address to {address} (for orders placed from now on; orders "
        "already placed keep the address they have)",
    },
    "update_order_address": {
        "zh": "将订单{order_number}改为寄往{address}（仅此订单；您的默认收货地址不变）",
        "en": "deliver order {order_number} to {address} (only this order; your default shipping address stays "
        "as it is)",
    },
}
# Said after a refund's proposal for an order delivered longer ago than the return window (``values`` carry
# ``delivered`` and ``window_days``): staff decide on it, and it may be refused.
LATE_REFUND = {
    "zh": "（该订单已于{delivered}签收，超过签收后{window_days}天的无理由退货期限，能否退款由客服审核决定）",
    "en": " (it was delivered on {delivered}, more than {window_days} days ago, outside the return window: our staff "
    "decide whether it can be refunded)",
}
# What was done, once the customer confirmed.
DONE = {
    "request_refund": {
        "zh": "已为订单{order_number}提交退款申请{amount}",
        "en": "a refund of {amount} for order {order_number} has been requested",
    },
    "update_notification_preference": {
        "zh": "您的通知已设置为{notification}",
        "en": "your notifications are now {notification}",
    },
    "update_contact_channel": {
        "zh": "今后我们会通过{channel}联系您",
        "en": "we'll contact you by {channel} from now on",
    },
    "update_shipping_address": {
        "zh": "您的默认收货地址已改为{address}",
        "en": "your default shipping address is now {address}",
    },
    "update_order_address": {
        "zh": "订单{order_number}将寄往{address}",
        "en": "order {order_number} will be delivered to {address}",
    },
    "request_expedite": {
        "zh": "我们已请仓库加快处理订单{order_number}，{due}前给您答复",
        "en": "we've asked the warehouse to hurry order {order_number} and will get back to you by {due}",
    },
    "request_expedite_again": {
        "zh": "订单{order_number}我们已经在催了，{due}前给您答复",
        "en": "we're already chasing order {order_number} and will get back to you by {due}",
    },
}
# What the shop remembers of a change it made, for the customer's memory page and later chats (``experience``).
EXPERIENCE = {
    "request_refund": {
        "zh": "{day}：已为订单{order_number}申请退款{amount}。",
        "en": "A refund of {amount} for order {order_number} was requested on {day}.",
    },
}
# Why the shop refused (``chat.shop.ShopError.code``).
REFUSED = {
    "not_an_order_number": {
        "zh": "“{order_number}”不是订单号（订单号形如 ORD-YYYY-NNNN）",
        "en": "{order_number!r} is not an order number (they look like ORD-YYYY-NNNN)",
    },
    "order_not_found": {"zh": "没有找到订单{order_number}", "en": "order {order_number} not found"},
    "already_shipped": {
        "zh": "订单{order_number}已经离开仓库（{status}），不需要再催仓库了，可以查看物流",
        "en": "order {order_number} has already left the warehouse ({status}): there is nothing to chase there; "
        "you can track it",
    },
    "not_expeditable": {
        "zh": "订单{order_number}目前是{status}状态，无法催单",
        "en": "order {order_number} is {status}, so it cannot be hurried",
    },
    "address_too_short": {
        "zh": "这个地址太短，无法投递",
        "en": "that address is too short to deliver to",
    },
    "address_incomplete": {
        "zh": "这个地址不完整：请写出省市区、街道和门牌号，我再为您提出修改",
        "en": "that address is not complete: please give the street and number with the town or city (and postcode)",
    },
    "address_has_request": {
        "zh": "这个地址里夹着不属于地址的话（比如“帮我”“改成”），请只发地址本身",
        "en": 'that address holds words that are not part of an address (such as "please" or "change it to"); '
        "please send the address alone",
    },
    "address_fixed": {
        "zh": "订单{order_number}{status}，已离开仓库，地址无法再修改（承运商可能提供改派服务）",
        "en": "order {order_number} is {status}: it has left the warehouse, so its address can no longer change "
        "(the carrier may offer a redirect)",
    },
    "not_refundable": {
        "zh": "订单{order_number}{status}，无法退款",
        "en": "order {order_number} is {status} and cannot be refunded",
    },
    "partial_refund": {
        "zh": "这里只能为订单{order_number}申请全额退款{amount}；部分退款需要人工客服处理，需要的话我可以为您转接",
        "en": "only the full amount of order {order_number} ({amount}) can be refunded here; a partial refund "
        "needs a colleague, and I can pass you to one",
    },
    "exchange_asked": {
        "zh": "订单{order_number}的换货或补发需要人工客服安排，这里不会为它申请退款；需要的话我可以为您转接",
        "en": "a replacement or exchange for order {order_number} is arranged by a colleague, and no refund is asked "
        "for it here: I can pass you to one",
    },
    "other_currency": {
        "zh": "订单{order_number}是用{currency_name}支付的{amount}；退款按实付的币种和金额全额退回，"
        "别的币种或金额需要人工客服处理，需要的话我可以为您转接",
        "en": "order {order_number} was paid in {currency_name} ({amount}); a refund goes back in the currency paid, "
        "for the full amount, and any other currency or amount needs a colleague: I can pass you to one",
    },
    "full_after_part": {
        "zh": "您在这次对话里要的是订单{order_number}的部分退款；全额退款{amount}只有在您明确要求全额时才会提出，"
        "部分退款需要人工客服处理，需要的话我可以为您转接",
        "en": "you asked for part of order {order_number}'s money in this chat; a full refund ({amount}) is proposed "
        "only when you ask for the full amount (say, “refund the full {amount}”), and a colleague can refund part of "
        "it: I can pass you to one",
    },
    "refund_over_total": {
        "zh": "退款不能超过订单{order_number}实付的金额{amount}；需要的话我可以为该订单申请全额退款",
        "en": "a refund can't be more than the {amount} paid for order {order_number}; I can request the full amount",
    },
    "refund_in_progress": {
        "zh": "订单{order_number}的退款正在处理中",
        "en": "a refund for order {order_number} is already being processed",
    },
    "already_done": {"zh": "这项操作已经完成", "en": "that was already done"},
    "no_phone_on_account": {
        "zh": "您的账户上没有登记电话号码，所以我们无法通过{channel}联系您；联系方式仍保持不变",
        "en": "there is no phone number on your account, so we can't reach you by {channel}; your contact "
        "channel stays as it is",
    },
    "no_email_on_account": {
        "zh": "您的账户上没有登记邮箱，所以我们无法通过邮件联系您；联系方式仍保持不变",
        "en": "there is no email on your account, so we can't reach you by email; your contact channel stays as it is",
    },
}
STATUSES = {
    "zh": {
        "pending": "待付款",
        "paid": "已付款",
        "processing": "处理中",
        "shipped": "已发货",
        "in_transit": "运输中",
        "delivered": "已签收",
        "cancelled": "已取消",
        "refunded": "已退款",
    },
    "en": {"in_transit": "in transit"},
}
CURRENCY_SIGNS = {"CNY": "¥", "USD": "$", "EUR": "€", "GBP": "£"}
CURRENCY_NAMES = {
    "zh": {"CNY": "人民币", "USD": "美元", "EUR": "欧元", "GBP": "英镑"},
    "en": {"CNY": "yuan", "USD": "US dollars", "EUR": "euros", "GBP": "pounds sterling"},
}


def _language(language: str) -> str:
    return "zh" if language.startswith("zh") else "en"


def _fields(values: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """The values as the sentences show them: names of channels and settings, money with its sign."""
    fields = {k: ("" if v is None else v) for k, v in values.items()}
    if "preference" in values:
        fields["notification"] = NOTIFICATIONS[lang].get(str(values["preference"]), values["preference"])
    if "channel" in values:
        fields["channel"] = CHANNELS[lang].get(str(values["channel"]), values["channel"])
    if "status" in values:
        status = str(values["status"])
        fields["status"] = STATUSES[lang].get(status, status.replace("_", " "))
    items = values.get("items")
    names = [str(name) for name in items if name] if isinstance(items, list) else []
    if not names:
        fields["items"] = ""
    else:
        fields["items"] = f"（{'、'.join(names)}）" if lang == "zh" else f" ({', '.join(names)})"
    if currency_code := str(values.get("currency") or "").upper():
        fields["currency_name"] = CURRENCY_NAMES[lang].get(currency_code, currency_code)
    amount = values.get("amount")
    if amount is not None and amount != "":
        currency = str(values.get("currency") or "")
        sign = CURRENCY_SIGNS.get(currency.upper())
        shown = f"{sign}{float(amount):,.2f}" if sign else f"{amount} {currency}".strip()
        fields["amount"] = f"（{shown}）" if lang == "zh" else shown
    elif lang == "zh":
        fields["amount"] = ""
    else:
        fields["amount"] = "the amount paid"
    return fields


def _say(table: Mapping[str, Mapping[str, str]], kind: str, values: Mapping[str, Any], language: str) -> str:
    lang = _language(language)
    wording = table.get(kind)
    if wording is None:
        return "" if lang == "zh" else kind.replace("_", " ")
    try:
        return wording[lang].format(**_fields(values, lang))
    except (KeyError, ValueError, IndexError):  # values missing: name the kind of change, not a broken sentence
        return wording[lang].split("{")[0].rstrip("（(") or kind.replace("_", " ")


def proposed(tool: str, values: Mapping[str, Any], language: str) -> str:
    """The change ``tool`` would make with ``values``, as the confirmation question names it."""
    said = _say(PROPOSED, tool, values, language)
    if tool == "request_refund" and values.get("delivered"):
        said += LATE_REFUND[_language(language)].format(**values)
    return said


def done(tool: str, values: Mapping[str, Any], language: str) -> str:
    """What the change made, once confirmed."""
    return _say(DONE, tool, values, language)


def experience(tool: str, values: Mapping[str, Any], language: str) -> str:
    """What the shop remembers of the change ``tool`` made (``values`` with its ``day``), or ""."""
    return _say(EXPERIENCE, tool, values, language) if tool in EXPERIENCE else ""


def handed_over(language: str, hours: int | None = None) -> str:
    """What the handoff tool tells the customer (and, with ``hours``, by when a colleague gets back to them)."""
    if _language(language) == "zh":
        return "我们的客服同事会接手这段对话" + (f"，{hours}小时内回复您" if hours else "")
    return "a colleague of ours will take over this chat" + (
        f" and get back to you within {hours} hours" if hours else ""
    )


def refused(code: str, values: Mapping[str, Any], language: str) -> str:
    """Why the shop refused a request (``ShopError``)."""
    lang = _language(language)
    if code not in REFUSED:
        return "这个请求无法完成" if lang == "zh" else "that request cannot be done"
    return _say(REFUSED, code, values, language)
