"""What a question about the customer is about (`ask_fact`): their address, channel, name … or last order. See
docs/offline-model.md.
"""

from __future__ import annotations

import re

from . import slots
from .speech import asks_about, detect_language


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# What a question is about, for ASK_FACT. Order matters: the first subject that matches wins.
SUBJECTS: list[tuple[str, re.Pattern[str]]] = [
    (
        "order_number",
        _re(
            r"(?:上次|上一次|之前|以前|刚才|前面|上回)[^，。]{0,12}(?:哪个|什么|哪一个|哪笔|哪张)(?:订单|单)|"
            r"(?:哪个|什么|哪一个)订单[^，。]{0,8}(?:上次|之前|以前)|"
            r"(?:上次|上一次|之前|以前|上回|刚才)[^。]{0,14}(?:订单号|单号|那单|那个订单|那笔订单)[^。]{0,8}(?:多少|是啥|啥|什么|哪个|几)|"
            r"(?i:which\s+order\s+(?:did|was|were|had|have)\s+(?:i|we)|what\s+order\s+(?:did|was|had)\s+(?:i|we)|"
            r"order\s+(?:number\s+)?(?:did\s+)?(?:i|we)\s+(?:ask|asked|mention|mentioned|inquire|talked|spoke|was\s+asking|"
            r"were\s+(?:talking|discussing))|which\s+order\s+(?:we|i)\s+(?:talked|spoke|asked|were|discussed)|"
            r"remind\s+me\s+(?:of\s+)?(?:the|which|what)\s+order|order\s+number\s+from\s+(?:our|the|my)\s+(?:last|previous|"
            r"earlier)|(?:last|previous)\s+time.{0,30}\border\b|\border\b.{0,30}(?:last|previous)\s+(?:time|chat|conversation)|"
            r"(?:last|previous|earlier)\s+(?:chat|conversation).{0,30}\border\b)"
        ),
    ),
    ("birthday", _re(r"生日|出生|(?i:birthday|\bborn\b|\bb-?day\b|date\s+of\s+birth|\bdob\b)")),
    (  # how notices reach the customer is the channel, asked before the notifications' on/off would match
        "contact_channel",
        _re(
            r"通知方式|通知渠道|(?:怎么|如何|用什么|通过什么|以什么)(?:方式)?通知我|"
            r"(?i:\bhow\s+(?:will|do|would|does|are)\s+you\s+(?:\w+\s+){0,2}?notify(?:ing)?\s+me\b|"
            r"\bnotify\s+me\s+(?:by|via|through)\b)"
        ),
    ),
    ("notification_preference", slots.NOTIFICATION_NOUN),
    (
        "contact_channel",
        _re(
            r"联系方式|联络方式|联系渠道|(?:怎么|如何|用什么|通过什么|通过啥|用啥|以什么|哪种|什么|啥|一般)(?:方式)?[^，。？?]{0,4}"
            r"(?:联系|联络|沟通|通知)我|(?:会|是)(?:给我)?(?:打电话|发短信|发邮件|发微信)[^，。]{0,8}(?:吗|还是)|"
            r"(?i:contact\s+(?:method|channel|preference|option|setting)|\bmy\s+contact\s+(?:got|was|is|has|had)\s+"
            r"(?:been\s+)?(?:switched|changed|set|moved|updated)\b|how\s+(?:will|do|should|would|did|does|are)\s+(?:you|"
            r"support|the\s+shop|your\s+team|they)\s+(?:\w+\s+){0,3}?(?:contact|reach|get\s+(?:in\s+touch\s+with|hold\s+of)|"
            r"message|notify)\s+me|preferred\s+(?:contact|channel|way)|(?:which|what)\s+(?:channel|way|contact)|"
            # in a list: "my address, channel and notifications", "my address and channel"
            r"(?<=,\s)channel\b|\bchannel(?=\s*(?:,|and\b))|\band\s+(?:my\s+|the\s+)?channel\b|\bmy\s+channel\b|"
            r"(?:do|will|would|are)\s+you\s+(?:\w+\s+){0,2}?(?:call|text|email|phone|message|reach|contact)(?:ing)?\s+me\b)"
        ),
    ),
    (
        "shipping_address",
        _re(
            r"(?<!邮件)(?<!邮箱)地址|住址|住在哪|寄到哪|送到哪|(?i:(?<!mail\s)\baddress\b|where\s+do\s+i\s+live|"
            r"where\s+do\s+(?:my\s+|the\s+)?(?:parcels|packages|orders|deliveries)\s+go|"
            r"where\s+do\s+you\s+(?:ship|send|deliver)\s+(?:my\s+)?(?:parcels|packages|orders|things|stuff)\b|"
            r"where\s+(?:will|would|does|do)\s+(?:my\s+|the\s+)?(?:next|future|new)\s+(?:order|parcel|package|delivery)s?\s+"
            r"(?:ship|go|be\s+(?:sent|shipped|delivered))\b)"
        ),
    ),
    (
        "name",
        _re(
            r"我(?:的)?(?:叫什么|名字|姓名|姓什么)|(?:我|账号|账户)[^，。]{0,8}(?:名字|姓名|称呼)|收件人|收货人|"
            r"(?i:what'?s\s+my\s+name|what\s+is\s+my\s+name|do\s+you\s+know\s+(?:my\s+name|who\s+i\s+am)|who\s+am\s+i|"
            r"(?:what|which)\s+name|under\s+what\s+name|my\s+(?:full\s+|first\s+|last\s+)?name\b|name\s+on\s+(?:my|the)\s+account)"
        ),
    ),
    # The number, not the act: "你们一般几点打电话", "when do you phone" ask when the shop calls.
    (
        "phone_number",
        _re(
            r"手机号|电话号|号码|(?:我|留|存|登记|联系|预留|绑定|注册)的?(?:手机|电话)|(?:手机|电话)(?:是|为)?(?:多少|哪个|什么)|"
            r"(?i:(?<!you\s)(?<!to\s)(?<!will\s)(?<!usually\s)(?<!normally\s)\bphone\b|\bmobile\b|\bcell\b)"
        ),
    ),
    ("email", _re(r"邮箱|邮件地址|(?i:\be-?mail\b)")),
    (
        "preferred_carrier",
        _re(
            r"(?:快递|物流)(?:偏好|喜好)|(?:喜欢|偏好|偏爱|选的|常用|指定|默认)(?:的)?(?:用)?(?:哪家|什么|哪个)?快递|"
            r"(?:哪家|什么)快递[^，。]{0,4}(?:喜欢|偏好)|快递是哪家|"
            r"(?i:(?:preferred|favourite|favorite|usual|default|chosen)\s+(?:carrier|courier|delivery\s+(?:company|service)|"
            r"shipping\s+(?:company|carrier))|(?:which|what)\s+(?:carrier|courier|delivery\s+company|shipping\s+carrier|"
            r"shipping\s+company)|(?:carrier|courier)\s+(?:is\s+)?(?:set|saved|on\s+record)|as\s+my\s+preference)"
        ),
    ),
]
# A question about the customer names them; "your email address" is the shop's.
_ABOUT_ME = _re(r"我|俺|账户|账号|留的|(?i:\b(?:my|me|i|i'?m|i'?ve|mine|we|us)\b|on\s+(?:file|record)|account)")
# "your warehouse address": the shop's; "your records" still hold the customer's.
_YOURS = _re(
    r"(?i)\byour\s+(?!records?|system|files?|database|end)\w+|\breturn\s+address|\bbirthday\s+(?:discount|offer|sale)"
)
_ABOUT_THE_SHOP = _re(
    r"你们的?(?:店铺|店|客服|公司)|贵店|店铺的|优惠|折扣|活动|福利|"
    r"(?i:\byour\s+(?:customer\s+service|shop|store|company|support)|discount|promotion|\boffers?\b)"
)


_ASKS_TO_BE_TOLD = re.compile(
    r"你(?:还)?记得|告诉我|提醒我|查一下我的|(?:帮我)?(?:查|看)(?:一)?下(?:我的|账户|账号)|"
    r"(?:帮我)?(?:查|看)(?:一)?下(?:现在的|目前的)?(?:通知|联系方式|收货地址|默认地址|地址)(?:设置)?(?![^，。？?]{0,6}(?:改|换|关|开))|"
    r"(?:帮我)?(?:查|看)(?:一)?下[^，。？?]{0,20}?(?:哪个|哪里|哪儿|什么|啥)|"  # "帮我查下 ORD-… 寄到哪个地址？"
    r"(?:报|发|说|讲|念|列|读)(?:给)?(?:我)?(?:一下|下)|给我(?:看看|说说|讲讲)|"
    r"(?i:do\s+you\s+(?:know|remember)|tell\s+me|remind\s+me|"
    # "my notification setting and contact channel please"
    r"^\s*(?:(?:and|also)\s+)?my\s+[a-z ,&/-]{3,80}?\s*,?\s*(?:please|pls|plz)\s*[.!?]*$|"
    r"(?:can|could)\s+you\s+(?:check|confirm|look\s+up)\s+(?:what|when|which|how|my|whether|if))"
)


_CLAUSE_MARKS = "，。,.!?！？;；"
# What makes a clause a question whatever its "is": "我地址是啥", "通知是开着还是关着的", "what is it".
_ASKED_IN_THE_CLAUSE = re.compile(
    r"[?？吗呢]|啥|什么|哪|多少|几|谁|怎么|还是|来着|(?i:\b(?:what|which|when|where|who|how|whether|or)\b)"
)
_IS = re.compile(r"(?i)\s*(?:is|'s|was|will\s+be|=|是|为|在)\s*\S")


def _told_beside_a_question(text: str, found: re.Match[str]) -> bool:
    """Whether the subject is told in a clause of its own ("my birthday is on monday", "我生日是下周一") beside a
    question about something else: it is no question about the subject."""
    ends = [i for mark in _CLAUSE_MARKS if (i := text.find(mark, found.end())) != -1]
    end = min(ends, default=len(text))
    start = max((text.rfind(mark, 0, found.start()) for mark in _CLAUSE_MARKS), default=-1) + 1
    clause = text[start : end + 1]
    asked = _ASKED_IN_THE_CLAUSE.search(clause) or re.match(r"(?i)\s*(?:when|what|which|is|do|does)\b", clause)
    return bool(_IS.match(text[found.end() : end])) and not asked


# "my settings" named alone: the two the customer sets here ("What are my current settings?", "我的设置是什么？").
_SETTINGS_ALONE = re.compile(
    r"(?i:\b(?:my|current|account)\s+(?:current\s+|account\s+)?settings\b)|(?:我的|账户|账号|目前的?|现在的?)设置(?![为成了好的])"
)


def _settings_named(text: str) -> str:
    """``text`` with "my settings" said as the two settings it means."""
    return _SETTINGS_ALONE.sub(
        lambda m: "通知设置和联系方式" if "设置" in m.group() else "notification setting and contact channel", text
    )


def fact_question(text: str) -> str:
    if not asks_about(text) and not _ASKS_TO_BE_TOLD.search(text):
        return ""
    text = _settings_named(text)
    for subject, pattern in SUBJECTS:
        if (found := pattern.search(text)) and not _told_beside_a_question(text, found):
            # Chinese drops the "my" ("联系方式是微信吗"); English says it, or "on file"
            mine = subject == "order_number" or (
                not _ABOUT_THE_SHOP.search(text)
                and (detect_language(text) == "zh" or bool(_ABOUT_ME.search(text)) or not _YOURS.search(text))
            )
            return subject if mine else ""
    return ""


# What may stand between two subjects of one question that lists them: "address, notification setting and
# contact channel", "收货地址、通知设置和联系方式". Anything else ("contact me, by phone?") is not a list.
_LIST_GAP = re.compile(
    r"(?:\s|[,，、/&+?？;；]|和|跟|与|及|以及|还有|我的|我|的|设置|偏好|是|呢|账户|账号|那|什么|啥|"
    r"(?i:and|plus|as\s+well\s+as|also|my|the|settings?|preferences?|number|what'?s|what\s+is|is|are|whether|if|"
    r"tell\s+me)\b)*"
)
_GAP_MAX = 24


def listed_subjects(text: str) -> list[str]:
    """The subjects of a question that lists several ("what are my address and contact channel?"), in the
    order it names them; one or none when it does not list."""
    first = fact_question(text)
    if not first or first == "order_number":
        return [first] if first else []
    text = _settings_named(text)
    spans = sorted((m.start(), m.end(), subject) for subject, pattern in SUBJECTS[1:] if (m := pattern.search(text)))
    listed = spans[:1]
    for start, end, subject in spans[1:]:
        if start < listed[-1][1]:  # "通知方式" holds "通知": the longer name is the subject named
            if end - start > listed[-1][1] - listed[-1][0]:
                listed[-1] = (start, end, subject)
            continue
        gap = text[listed[-1][1] : start]
        if len(gap) > _GAP_MAX or not _LIST_GAP.fullmatch(gap):
            break
        listed.append((start, end, subject))
    subjects = list(dict.fromkeys(subject for _, _, subject in listed))
    return subjects if len(subjects) > 1 and first in subjects else [first]


def names_its_own_answer(subject: str, text: str) -> bool:
    """ "Is my address X?" states X; "which courier has my parcel" asks about a parcel."""
    if subject == "preferred_carrier" and re.search(
        r"包裹|这单|现在|(?i:parcel|package|shipment|delivering|right\s+now)", text
    ):
        return True
    return bool(
        (subject == "shipping_address" and slots.address(text))
        or (subject == "phone_number" and slots.phones(text))
        or (subject == "email" and slots.emails(text))
    )
