"""Another person's account asked about: "what is the address of customer bob?", "alice's phone number?",
"帮我查一下张先生的订单". The agent serves the customer logged in, and only them: it says so rather than answer
with the asker's own data. A name that is the customer's own ("王先生的订单" from 王小明) is theirs.
"""

from __future__ import annotations

import re

from . import slots
from .speech import HAN

_DATA_EN = (
    r"(?:address(?:es)?|phone(?:\s+number)?|mobile|number|e-?mail|orders?|refunds?|purchases?|details|"
    r"info(?:rmation)?|account|profile|contact(?:\s+details)?|parcels?|packages?|deliver(?:y|ies)|notif\w*|"
    r"settings?|preferences?|alerts?)\b(?!\s+polic)"
)
_DATA_ZH = r"(?:地址|电话|手机|号码|订单|邮箱|退款|信息|资料|账户|账号|包裹|快递|购买记录|通知|设置|联系方式)"
# Words before "'s" that name no person: "what's my order", "today's delivery", "UPS's number".
_NOT_A_PERSON = frozenset(
    [
        "what",
        "where",
        "who",
        "how",
        "it",
        "that",
        "there",
        "here",
        "he",
        "she",
        "let",
        "one",
        "today",
        "yesterday",
        "tomorrow",
        "week",
        "month",
        "year",
        "order",
        "shop",
        "store",
        "company",
        "everyone",
        "everybody",
        "nobody",
        "ups",
        "dhl",
        "fedex",
        "usps",
        "amazon",
        "sf",
        "courier",
        "driver",
        "carrier",
        "customer",
        "name",
        "account",
        "item",
        "product",
        "parcel",
        "package",
        "someone",
        "somebody",
        "anyone",
        "else",
        "other",
        "another",
    ]
)
_SOMEONE_ELSE = re.compile(
    r"(?i)\b(?:someone|somebody|anyone)\s+else(?:['’]s)?\s+(?:[\w-]+\s+){0,2}?" + _DATA_EN + r"|"
    r"\b(?:another|other)\s+(?:customer|person|user|client)s?(?:['’]s?)?\s+(?:[\w-]+\s+){0,2}?" + _DATA_EN + r"|"
    r"(?:别人|他人|其他(?:客户|用户|人)|别的(?:客户|用户|人)|另一个(?:客户|用户|人))的[^，。？?！!]{0,4}?"
    + _DATA_ZH
    + r"|"
    # "我另一个账号是li，帮我查一下那个账号…": an account that is not the one signed in
    r"(?:另一个|另外一个|别的|其他|其它)(?:账号|账户|帐号)|小号|"
    # another customer by their place in the queue: "上一个跟你聊天的客户说了什么", "the last person you talked to"
    r"(?:上一个|上一位|上个|前一个|前一位|下一个|下一位|刚才那个|刚才那位)[^，。？?！!]{0,8}?(?:客户|用户|顾客|买家|人)|"
    r"(?i:\b(?:previous|last|next|other)\s+(?:customer|person|user|client|buyer|guy|lady)\b(?:\s+(?:you|that|who)\b"
    r"[^.?!]{0,30})?[^.?!]{0,20}?\b(?:say|said|ask|asked|want|wanted|buy|bought|order|ordered)\b)"
)
# Someone named as the one who has or bought: "how many orders does customer wang have", "what did bob order?".
_NAMED_ASKED_EN = re.compile(
    r"(?i)\b(?:does|did|has|is)\s+(?:the\s+)?(?:customer|user|client|account)\s+(?!service\b|support\b)([\w.@+-]+)|"
    r"\b(?:what|which|how\s+many)\b[^.?!]{0,20}?\b(?:did|does|has|have)\s+"
    r"(?!(?:i|you|we|they|he|she|it|my|the|a|an|this|that|these|those|your|our)\b)([a-z][a-z'-]{1,20})\s+"
    r"(?:order|ordered|buy|bought|purchase|purchased|get)\b|"
    # "whats the address on file for user bob?", "orders of customer wang"
    r"\b(?:for|of|on|under|about)\s+(?:the\s+)?(?:customer|user|client|account|username)\s+(?!service\b|support\b)"
    r"([\w.@+-]+)"
)
_NAMED_EN = re.compile(
    r"(?i)(?<!\bmy\s)(?<!\bour\s)\b([a-z][a-z'-]{1,20})['’]s\s+(?:[\w-]+\s+){0,2}?"
    + _DATA_EN
    + r"|"
    + _DATA_EN
    + r"\s+(?:of|for)\s+(?:the\s+)?(?:customer|user|client|account(?:\s+holder)?)\s+(?:named\s+|called\s+)?"
    r"([\w.@+-]+)|\b(?:customer|user|client)\s+(?:named\s+|called\s+)?([\w.@+-]+)['’]s\s+"
)
_NAMED_ZH = re.compile(
    r"(?:客户|用户|顾客)\s*([A-Za-z0-9_.@\u4e00-\u9fff]{1,12}?)的[^，。？?！!]{0,4}?" + _DATA_ZH + r"|"
    # "帮 wang 把地址改成 …", "替 bob 把通知关了": a change made for someone named, on their account
    r"(?:帮|替)\s*([A-Za-z][A-Za-z0-9_.-]{1,20})\s*(?:把|改|修改|更改|换|关|开|退|查|设置|取消)|"
    r"([\u4e00-\u9fff])(?:先生|女士|小姐|老师)的[^，。？?！!]{0,4}?" + _DATA_ZH
)
# Someone close to the customer. Their order is taken for one the customer placed for them ("my wife's order
# hasn't arrived"); their own details, or orders on an account of their own, are another person's data.
RELATIVE_EN = (
    r"(?:husband|wife|partner|spouse|son|daughter|kids?|child(?:ren)?|mother|mom|mum|father|dad|parents?|brother|"
    r"sister|friend|boyfriend|girlfriend|fianc[eé]e?|colleague|co-?worker|boss|neighbou?r|room-?mate|flatmate)"
)
RELATIVE_ZH = (
    r"(?:老公|老婆|丈夫|妻子|爱人|太太|媳妇|妈妈|爸爸|母亲|父亲|爸妈|父母|儿子|女儿|孩子|哥哥|姐姐|弟弟|妹妹|"
    r"朋友|同事|室友|邻居|男朋友|女朋友|男友|女友|对象|家人|妈|爸)"
)
_DETAILS_EN = r"(?:address(?:es)?|phone(?:\s+number)?|mobile|e-?mail|account|profile|contact(?:\s+details)?)\b"
_DETAILS_ZH = r"(?:地址|电话|手机|号码|邮箱|账户|账号|资料)"
_RELATIVES_DETAILS = re.compile(
    rf"(?i)(?<!\bto\s)\bmy\s+{RELATIVE_EN}['’]s\s+(?:[\w-]+\s+){{0,2}}?{_DETAILS_EN}|"
    rf"(?<![给到往寄成我])(?:我)?{RELATIVE_ZH}(?:家)?的[^，。？?！!\s]{{0,4}}?{_DETAILS_ZH}"
)
_RELATIVE_MENTIONED = re.compile(rf"(?i)\b{RELATIVE_EN}(?:['’]?s)?\b|{RELATIVE_ZH}")  # "my moms number"
# Someone other than the customer spoken of: a relative, a friend, "she", "his".
SOMEONE_ELSE_MENTIONED = re.compile(rf"(?i)\b{RELATIVE_EN}\b|\b(?:she|he|her|his)\b|{RELATIVE_ZH}|[他她]")
_ACCOUNT_OF_THEIR_OWN = re.compile(
    rf"(?i)\b(?:my\s+)?{RELATIVE_EN}\b.{{0,40}}?\b(?:has|have|got|with)\s+(?:an?|his|her|their)\s+(?:own\s+)?"
    rf"account|\bmy\s+{RELATIVE_EN}['’]s\s+(?:account|username|login)\s+(?:is|name)\b|"
    rf"{RELATIVE_ZH}.{{0,12}}?(?:也有|有自己的|自己有|自己的|另有)(?:一个)?(?:账号|账户)|"
    rf"(?:{RELATIVE_ZH}|[他她])的?(?:账号|账户|用户名)(?:是|叫)"
)
_THEIR_ORDERS = re.compile(
    r"(?i)\b(?:his|her|their)\s+(?:[\w-]+\s+){0,2}?(?:orders?|refunds?|purchases?|account)\b|"
    r"\bwhat\s+(?:did|has|have)\s+(?:he|she|they)\s+(?:order|bought|buy|purchased?)\b|"
    rf"[他她](?:们)?(?:的|最近|上次|之前|都)?[^，。？?！!]{{0,8}}?(?:{_DATA_ZH}|买了|下单|下了|订了|退|通知|改)|"
    r"\b(?:refund|cancel|change|update|mute|track)\s+(?:his|her|their)\b"
)
# Someone else at the keyboard: "its actually alice typing", "im on bobs laptop".
_SOMEONE_ELSE_TYPING = re.compile(
    r"(?i)\b(?:it'?s|this\s+is|i'?m|i\s+am)\s+(?:actually\s+|really\s+)?([a-z]{2,20})\s+(?:typing|here|writing|speaking)\b|"
    r"\bon\s+([a-z]{2,20})['’]?s\s+(?:laptop|phone|account|computer|pc|login)\b"
)
# A person named by a Chinese name before their details ("王伟的手机号是多少"): a common surname and one or two
# characters, not the words those characters also begin ("周末的订单", "方便的地址").
_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈姚卢姜"
    "崔钟谭陆汪范石廖贾夏韦方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
)
_HAN_NAMED = re.compile(
    rf"(?<![我你您他她的在是])(?!周[一二三四五六日天末]|高[端价档铁]|方[便式]|马上|黄色|白色|江[苏西]|何时|任何|万一|程序|石家庄)"
    rf"([{_SURNAMES}](?!批准|答应|同意|说|承诺|处理|安排|办理|审核|确认|给|帮|让)[\u4e00-\u9fff]{{1,2}}?)的"
    r"(?:手机号?|电话|号码|地址|邮箱|订单|退款|账号|账户)"
)
_CUSTOMER_LINE = re.compile(r"^(?:Customer: |客户：)(.+)$", re.M)


def _names_of(customer: str) -> set[str]:
    """What the customer may call themselves: each word of an English name; a Chinese name, its surname and given
    name."""
    customer = customer.strip().lower()
    if HAN.search(customer):
        return {customer, customer[:1], customer[1:]} - {""}
    return set(customer.split())


def customer_name(system: str) -> str | None:
    """The name of the account the customer is logged in to, as the system prompt gives it."""
    found = _CUSTOMER_LINE.search(system)
    return found.group(1).strip() if found else None


def someone_else_asked_about(text: str, system: str) -> bool:
    """Whether ``text`` asks about the data of a person other than the customer (named in ``system``)."""
    if _SOMEONE_ELSE.search(text):
        return True
    if _asks_about_a_relative(text):
        return True
    account = customer_name(system)
    own = _names_of(account) if account else set()
    for pattern in (_NAMED_EN, _NAMED_ASKED_EN, _NAMED_ZH, _SOMEONE_ELSE_TYPING, _HAN_NAMED):
        for m in pattern.finditer(text):
            name = next((g for g in m.groups() if g), "").lower().strip("'’")
            if name and name not in _NOT_A_PERSON and name not in own:
                return True
    return False


# Orders looked for under a phone number ("查下手机号 139… 名下的订单", "orders under 07700 900111").
_UNDER_A_NUMBER = re.compile(
    r"(?:手机号?|电话|号码)[^，。？?！!]{0,20}?名下|名下[^，。？?！!]{0,4}(?:手机号?|电话|号码)|"
    r"(?i:\borders?\s+(?:under|for|on|with|linked\s+to)\s+(?:the\s+)?(?:(?:phone|mobile)\s+)?(?:number\s+)?\+?\d)"
)


def _asks_about_a_relative(text: str) -> bool:
    """The details of someone close to the customer, or orders on an account of their own (or under their phone
    number), asked about; never a value of theirs the customer gives ("send it to my mom's address, 5 Main St": an
    address the customer chose)."""
    if _RELATIVE_MENTIONED.search(text) and _ACCOUNT_OF_THEIR_OWN.search(text) and _THEIR_ORDERS.search(text):
        return True
    if _RELATIVE_MENTIONED.search(text) and _UNDER_A_NUMBER.search(text):
        return True  # "帮我查下手机号 139… 名下的订单，是我妈的号": her orders, by her number
    if slots.address(text) or slots.emails(text) or slots.phones(text):
        return False
    return bool(_RELATIVES_DETAILS.search(text))
