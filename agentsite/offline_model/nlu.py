"""Language detection, speech acts and intents of one customer message (zh and en).

Intents are word families matched as patterns, not fixed sentences, and are checked in a fixed
priority order (see `classify`). Values inside the message (order numbers, dates, addresses …) are
found by `slots` and `dates`; what a statement says about the customer is `facts`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from . import slots

_HAN = re.compile(r"[\u4e00-\u9fff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
_NOT_WORDS = re.compile(r"ORD[-_ ]?\d{4}[-_ ]?\d+|[\w.+\-]+@[\w.\-]+|\b[A-Z]{2,}\b", re.I)


def detect_language(text: str) -> str:
    """Return "zh" when the text is mostly Chinese, else "en"."""
    han = len(_HAN.findall(text))
    if not han:
        return "en"
    words = len(_LATIN_WORD.findall(_NOT_WORDS.sub(" ", text)))
    return "zh" if han >= 2 or words <= 2 else "en"


_QUESTION_ZH = re.compile(
    r"吗|呢\s*[?？。]?\s*$|什么|啥|哪|几|多少|怎么|怎样|如何|是否|有没有|是不是|对不对|能否|可否|可不可以|记得"
)
_QUESTION_EN = re.compile(
    r"(?i)^\s*(?:what|when|where|which|who|whom|whose|why|how|is|are|am|do|does|did|can|could|will|"
    r"would|should|have|has|may|any)\b|\b(?:do|does|did)\s+you\s+(?:know|remember|have)\b"
)
_REQUEST = re.compile(
    r"请(?!问)|帮我|帮忙|麻烦|把|给我|我要|我想|我需要|能不能|能否|可以帮|可不可以帮|希望"
    r"|(?i:\bplease\b|\bcan\s+you\b|\bcould\s+you\b|\bwould\s+you\b|\bwill\s+you\b|\bi\s+want\b|"
    r"\bi'?d\s+like\b|\bi\s+would\s+like\b|\bi\s+need\b|\bhelp\s+me\b|\blet'?s\b|^\s*(?:set|change|update|"
    r"switch|turn|make|mute|unmute|stop|enable|disable)\b)"
)


def is_question(text: str) -> bool:
    return bool(re.search(r"[?？]", text) or _QUESTION_ZH.search(text) or _QUESTION_EN.search(text))


def is_request(text: str) -> bool:
    return bool(_REQUEST.search(text))


_WH_START = re.compile(r"(?i)^\s*(?:what|when|where|which|who|whom|whose|how)\b")


def asks_about(text: str) -> bool:
    """A question that is not a request to change something ("are my notifications muted?")."""
    return is_question(text) and (not is_request(text) or bool(_WH_START.match(text)))


class Intent(StrEnum):
    HUMAN = "human"
    CONFIRM = "confirm"
    DENY = "deny"
    INJECTION = "injection"
    POLICY = "policy"
    REFUND = "refund"
    TRACK = "track_shipment"
    STATUS = "order_status"
    LIST_ORDERS = "list_orders"
    SET_NOTIFICATION = "set_notification"
    SET_CHANNEL = "set_channel"
    SET_ADDRESS = "set_address"
    ASK_FACT = "ask_fact"
    RECALL = "recall"
    THANKS = "thanks"
    GOODBYE = "goodbye"
    ACKNOWLEDGE = "acknowledge"
    APOLOGY = "apology"
    BOT_QUESTION = "bot_question"
    GREETING = "greeting"
    OTHER = "other"


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


INJECTION = _re(
    r"(?:忽略|无视|忘记|忘掉)(?:掉)?(?:你)?(?:之前|以上|上面|前面|先前|所有|全部|你的)?(?:的)?(?:所有|全部)?"
    r"(?:指令|指示|规则|提示|设定|要求|限制)|系统提示词?|你现在是|扮演|开发者模式|管理员模式"
    r"|(?i:\bignore\s+(?:all\s+)?(?:of\s+)?(?:the\s+|your\s+|any\s+|my\s+)?(?:previous|prior|above|earlier|preceding|"
    r"former)?\s*(?:instructions|prompts?|rules|directions|guidelines)|disregard\s+(?:all\s+)?(?:the\s+)?(?:previous|"
    r"prior|above|your)\s+(?:instructions|rules)|forget\s+(?:all\s+)?(?:your|previous)\s+instructions|"
    r"system\s+prompt|developer\s+mode|jailbreak|you\s+are\s+now\s+|act\s+as\s+(?:an?\s+)?(?:admin|"
    r"administrator|developer|root))"
)
HUMAN = _re(
    r"人工|真人|转接|主管|经理|投诉电话|找(?:个)?人(?:工)?(?:来|处理|帮)"
    r"|(?i:\bhuman\b|real\s+(?:person|people)|live\s+(?:agent|person|chat|support)|representative|\brep\b|"
    r"(?:speak|talk|chat)\s+(?:to|with)\s+(?:someone|somebody|a\s+(?:person|human|manager|supervisor|real)|"
    r"an?\s+(?:agent|operator|actual))|\bmanager\b|\bsupervisor\b|\boperator\b|\bescalate\b)"
)
CONFIRM = _re(
    r"(?i)^\s*(?:确认|确定|是的|是|对|对的|没错|好的|好|可以|行|同意|嗯+|ok(?:ay)?|yes|yep|yeah|y|sure|"
    r"confirm(?:ed)?|go\s+ahead|do\s+it|please\s+do|correct|that'?s\s+right|right|proceed)"
    r"(?:[\s,，。.!！]*(?:确认|确定|请继续|继续|执行|谢谢|吧|please|thanks|thank\s+you|go\s+ahead|do\s+it|"
    r"proceed|confirm(?:ed)?|yes))*\s*[\s。.!！~]*$"
)
DENY = _re(
    r"(?i)^\s*(?:不|不用了?|不要|算了|取消|先不(?:用)?了?|不是|否|别|no|nope|cancel|don'?t|do\s+not|"
    r"never\s*mind|stop|not\s+now)(?:[\s,，]*(?:谢谢|了|吧|thanks|thank\s+you|please|it))*\s*[\s。.!！]*$"
)
POLICY_STRONG = _re(
    r"政策|规定|规则|条款|须知|退换货|保修|质保|服务协议|(?i:\bpolic(?:y|ies)\b|\bterms\b|\bwarranty\b|"
    r"\bguarantee\b|\bfaq\b)|(?:通知|联系)(?:选项|方式有哪些|有哪些(?:选项|方式))|有哪些通知|"
    r"(?i:(?:notification|contact)\s+options|options\s+for\s+(?:notifications|contact))"
)
POLICY_WEAK = _re(
    r"多久|几天|多长时间|多少天|运费|包邮|邮费|能不能退|能退吗|可以退|怎么退|如何退|退货流程|退款流程|怎么申请|"
    r"支持哪些|发什么快递|用什么快递|哪些快递|配送范围|(?i:how\s+long|how\s+many\s+days|shipping\s+(?:time|cost|fee|"
    r"options|rates?)|delivery\s+(?:time|fee|cost|options)|return\s+window|can\s+i\s+return|how\s+do\s+(?:i|returns|"
    r"refunds)|how\s+does\s+\w+\s+work|what\s+options|do\s+you\s+(?:ship|deliver|offer|support|accept)|"
    r"which\s+carriers)"
)
POSSESSIVE = _re(r"我的|俺的|(?i:\bmy\b)")
REFUND = _re(
    r"退款|退钱|退货|退回|把钱退|钱退|退给我|退我钱|申请退|要退|退掉|能退|可以退|(?i:\brefund|money\s+back|\breimburs|"
    r"\breturn\s+(?:it|this|that|the|my|an?|these|them)\b|send\s+(?:it|this|them)\s+back|chargeback)"
)
TRACK = _re(
    r"(?:快递|包裹|物流|货|东西)[^，。,.!?！？]{0,6}(?:到哪|在哪|到了吗|到没到|怎么还没|什么时候|几时|多久|进度|"
    r"信息|状态|更新|到了没)|物流|追踪|跟踪|查(?:一下|下)?(?:快递|包裹)|运单|配送|派送|到哪(?:了|里|儿)|"
    r"在哪(?:里|儿)?了|(?:什么时候|何时|几时|多久)(?:能)?(?:到|送到|送达|到货|收到|发货)|还没(?:收到|到)|"
    r"发货了(?:吗|没)|到了没|到没到|送到了(?:吗|没)|在路上|(?:还没|没有?)发货|发了(?:吗|没)|(?i:(?:hasn'?t|has\s+not|not\s+yet)\s+(?:been\s+)?shipped)|(?i:where(?:'s|\s+is|\s+are)\s+(?!your\b)|\bwhere\b(?!\s+(?:do|does|did|can|could|should|would|will)\b)|on\s+(?:its|the|their)\s+way|\btrack(?:ing)?\b|\bshipment\b|"
    r"\bparcel\b|\bpackage\b|\bcourier\b|in\s+transit|when\s+(?:will|does|is|should|can|would)\s+"
    r".{0,40}?(?:arrive|get\s+(?:here|there|it)|be\s+delivered|come|ship|receive)|(?:has|have)\s+(?:it|they|my\s+\w+|the\s+\w+|[\w\-]+)\s+"
    r"(?:arrived|shipped|been\s+(?:shipped|delivered|sent))|(?:hasn'?t|has\s+not|haven'?t|didn'?t)\s+(?:arrived|"
    r"come|received|got)|delivery\s+status|not\s+(?:arrived|received)\s+yet|still\s+(?:waiting|hasn'?t))"
)
STATUS = _re(
    r"订单[^，。,.!?！？]{0,6}(?:状态|进度|情况|怎么样|怎样|如何|处理|详情|信息)|(?:查|查询|查看|看看|看一下|查一下|"
    r"帮我查)(?:一下|下)?(?:我的)?(?:这个|那个|一个)?订单|订单[^，。,.!?！？]{0,4}(?:吗|呢|？|\?)|"
    r"(?i:\bstatus\b|what'?s\s+(?:happening|going\s+on|up)\s+with|update\s+on|check\s+(?:on\s+)?(?:my\s+|the\s+|"
    r"this\s+|an?\s+)?order|look\s+up|lookup|look\s+into|how\s+is\s+(?:my\s+)?order|details?\s+(?:of|for|on)|"
    r"order\s+details?|\bprogress\b)"
)
LIST_ORDERS = _re(
    r"(?:我的|所有|全部|最近|历史|之前|以前|我)(?:的)?(?:所有|全部)?订单(?!号)|订单列表|订单(?:都)?有哪些|(?:哪些|几个|多少个?)订单|"
    r"下过(?:哪些|什么|几)|买过(?:哪些|什么)|(?i:\bmy\s+orders\b|\ball\s+(?:of\s+)?my\s+orders|order\s+history|"
    r"\blist\b.{0,20}\borders\b|\borders\s+(?:did|have)\s+i|\b(?:recent|past|previous|open)\s+orders|"
    r"what\s+(?:did|have)\s+i\s+(?:order|ordered|buy|bought|purchase)|what\s+i\s+(?:ordered|bought))"
)
ADDRESS_CHANGE = _re(
    r"(?:改|修改|更改|更新|换|变更)(?:一下)?(?:我的)?(?:收货|配送|送货|邮寄)?地址|地址(?:改|换|更新|变)|新地址|"
    r"寄到|(?<!什么时候)(?<!何时)送到|发到|搬到|搬家"
    r"|(?i:(?:change|update|modify|correct|edit)\s+(?:my\s+|the\s+)?(?:shipping\s+|delivery\s+|mailing\s+|"
    r"home\s+)?address|new\s+address|(?:ship|deliver|send|mail)\s+(?:[\w'-]+\s+){0,4}?to\b|\bmoved\s+to\b|address\s+(?:is\s+)?(?:now|changed))"
)
THANKS = _re(r"谢谢|多谢|感谢|谢啦|辛苦了|(?i:\bthanks?\b|thank\s+you|\bthx\b|\bty\b|appreciate|\bcheers\b)")
REFUSED_CHANNEL = _re(
    r"(?:不要|别|不用)再?(?:给我)?(?:打电话|来电|发短信|发邮件)|"
    r"(?i:(?:stop|quit)\s+(?:calling|texting|emailing|phoning)\s+me|(?:don'?t|do\s+not)\s+(?:call|text|email|phone)\s+me)"
)
GREETING = _re(
    r"^\s*(?:你好|您好|嗨|哈喽|早上好|下午好|晚上好|在吗|在不在|有人吗)|你是谁|你是机器人|你叫什么|你好吗|"
    r"(?i:^\s*(?:hello|hi|hey|howdy|good\s+(?:morning|afternoon|evening))\b|how\s+are\s+you|who\s+are\s+you|"
    r"are\s+you\s+(?:a\s+)?(?:bot|robot|human|real)|what'?s\s+up|what\s+can\s+you\s+do|how\s+can\s+you\s+help)"
    r"|你能做什么|你可以做什么|你能帮我(?:做)?什么|你会什么"
)
# Small talk. A question about what the agent is ("are you a real person?") is not a request for one.
BOT_QUESTION = _re(
    r"(?:你|您)(?:是不是|是)(?:个|一个)?(?:机器人|AI|人工智能|真人|真的人|程序|自动回复)|是(?:机器人|AI|真人)(?:吗|么|在回复)|"
    r"(?:机器人|AI|真人)(?:吗|么)\s*[?？]|"
    r"(?i:\bare\s+you\s+(?:an?\s+|the\s+)?(?:bot|chat\s*bot|robot|ai|human|real(?:\s+person)?|person|machine|"
    r"computer|automated|program)\b|\bis\s+this\s+(?:an?\s+)?(?:bot|chat\s*bot|robot|ai|human|real\s+person|person|"
    r"automated|machine)\b|\bam\s+i\s+(?:talking|speaking|chatting|writing)\s+(?:to|with)\s+(?:an?\s+)?(?:bot|"
    r"chat\s*bot|robot|ai|human|real\s+person|person|machine|computer)\b)"
)
GOODBYE = _re(
    r"再见|拜拜|回头见|下次见|先这样|就这样吧?|没(?:有)?(?:别的|其他|什么)(?:事|问题)?了|没事了|晚安|"
    r"(?i:\bbye\b|good\s*-?bye|see\s+(?:you|ya)\b|that'?s\s+(?:all|it)\b|nothing\s+else|\bcya\b|"
    r"have\s+a\s+(?:good|nice|great|lovely)\s+(?:day|one|evening|night|weekend)|good\s*night|take\s+care)"
)
ACKNOWLEDGE = _re(
    r"^\s*(?:好的?|嗯+|哦+|噢+|喔+|行|知道了|明白了?|了解了?|懂了|收到|好吧|ok(?:ay)?|k|got\s+it|i\s+see|"
    r"cool|great|alright|all\s+right|sounds\s+good|fine|noted|understood|perfect|nice)"
    r"(?:[\s,，.。!！~]+(?:好的?|嗯+|谢谢|ok(?:ay)?|thanks|thank\s+you|cool|great))*[\s,，.。!！~]*$",
    # a bare acknowledgement; a longer message says something else
)
APOLOGY = _re(
    r"^\s*(?:(?:不好意思|抱歉|对不起|(?i:sorry|my\s+bad|apologies|oops))[\s,，.。!！~]*)+"
    r"(?:我?(?:打错了|说错了|弄错了|搞错了)|(?i:wrong\s+(?:one|order|number|chat)|typo|ignore\s+that|my\s+mistake))?"
    r"[\s,，.。!！~]*$"
)
RECALL = _re(
    r"(?:你)?(?:还)?记得(?:我|关于我)(?!的)|(?:关于我|我的)[^，。]{0,4}(?:你)?(?:知道|了解|记得)(?:些)?什么|"
    r"你(?:都)?知道我(?:的)?(?:哪些|什么)|(?i:what\s+do\s+you\s+(?:know|remember)\s+about\s+me|"
    r"do\s+you\s+remember\s+me|what\s+have\s+i\s+told\s+you)"
)

# What a question is about, for ASK_FACT. Order matters: the first subject that matches wins.
SUBJECTS: list[tuple[str, re.Pattern[str]]] = [
    (
        "order_number",
        _re(
            r"(?:上次|上一次|之前|以前|刚才|前面|上回)[^，。]{0,12}(?:哪个|什么|哪一个|哪笔|哪张)(?:订单|单)|"
            r"(?:哪个|什么|哪一个)订单[^，。]{0,8}(?:上次|之前|以前)|"
            r"(?i:which\s+order\s+(?:did|was|were|had)\s+i|what\s+order\s+(?:did|was|had)\s+i|"
            r"order\s+(?:number\s+)?(?:did\s+)?i\s+(?:ask|asked|mention|mentioned|inquire)|"
            r"(?:last|previous)\s+time.{0,30}\border\b|\border\b.{0,30}(?:last|previous)\s+time)"
        ),
    ),
    ("birthday", _re(r"生日|出生|(?i:birthday|\bborn\b|\bb-?day\b|date\s+of\s+birth|\bdob\b)")),
    ("notification_preference", slots.NOTIFICATION_NOUN),
    (
        "contact_channel",
        _re(
            r"联系方式|联络方式|联系渠道|(?:怎么|如何|用什么|通过什么|以什么|哪种|什么)(?:方式)?[^，。？?]{0,4}(?:联系|联络|沟通|通知)我|"
            r"(?:会|是)(?:给我)?(?:打电话|发短信|发邮件|发微信)[^，。]{0,8}(?:吗|还是)|"
            r"(?i:contact\s+(?:method|channel|preference|option)|how\s+(?:will|do|should|would|did|does|are)\s+(?:you|support|"
            r"the\s+shop|your\s+team|they)\s+(?:\w+\s+){0,3}?(?:contact|reach|get\s+(?:in\s+touch\s+with|hold\s+of)|message)\s+me|"
            r"preferred\s+(?:contact|channel)|(?:which|what)\s+(?:channel|way|contact)|"
            r"(?:do|will|would|are)\s+you\s+(?:\w+\s+){0,2}?(?:call|text|email|phone|message|reach)(?:ing)?\s+me\b)"
        ),
    ),
    ("shipping_address", _re(r"(?<!邮件)(?<!邮箱)地址|住址|住在哪|(?i:(?<!mail\s)\baddress\b|where\s+do\s+i\s+live)")),
    (
        "name",
        _re(
            r"我(?:的)?(?:叫什么|名字|姓名|姓什么)|(?i:what'?s\s+my\s+name|what\s+is\s+my\s+name|"
            r"do\s+you\s+know\s+(?:my\s+name|who\s+i\s+am)|who\s+am\s+i)"
        ),
    ),
    ("phone_number", _re(r"电话|手机号|手机|(?i:\bphone\b|\bmobile\b|\bcell\b)")),
    ("email", _re(r"邮箱|邮件地址|(?i:\be-?mail\b)")),
    (
        "preferred_carrier",
        _re(
            r"(?:快递|物流)(?:偏好|喜好)|(?:喜欢|偏好|偏爱)(?:用)?(?:哪家|什么|哪个)快递|(?:哪家|什么)快递[^，。]{0,4}(?:喜欢|偏好)|"
            r"(?i:preferred\s+(?:carrier|courier|shipping\s+company)|(?:which|what)\s+(?:carrier|courier))"
        ),
    ),
]


@dataclass(frozen=True)
class Understanding:
    intent: Intent
    lang: str
    subject: str = ""  # for ASK_FACT
    injection: bool = False


_ASKS_TO_BE_TOLD = re.compile(
    r"你(?:还)?记得|告诉我|提醒我|查一下我的|(?i:do\s+you\s+(?:know|remember)|tell\s+me|remind\s+me|"
    r"(?:can|could)\s+you\s+(?:check|confirm|look\s+up)\s+(?:what|when|which|how|my))"
)


def _fact_question(text: str) -> str:
    if not asks_about(text) and not _ASKS_TO_BE_TOLD.search(text):
        return ""
    for subject, pattern in SUBJECTS:
        if pattern.search(text):
            return subject
    return ""


def _names_its_own_answer(subject: str, text: str) -> bool:
    """ "Is my address X?" states X; "when will my phone arrive?" is about a parcel."""
    if subject in ("shipping_address", "phone_number", "preferred_carrier") and TRACK.search(text):
        return True
    return bool(
        (subject == "shipping_address" and slots.address(text))
        or (subject == "phone_number" and slots.phones(text))
        or (subject == "email" and slots.emails(text))
    )


def classify(text: str) -> Understanding:
    """Decide what the customer wants from their latest message.

    An attempt at prompt injection is flagged and then ignored: the rest of the message is
    classified as if it were not there.
    """
    lang = detect_language(text)
    injection = bool(INJECTION.search(text))
    if injection:
        text = INJECTION.sub(" ", text)

    def result(intent: Intent, subject: str = "") -> Understanding:
        return Understanding(intent, lang, subject, injection)

    has_order = bool(slots.order_numbers(text))
    if BOT_QUESTION.search(text) and not HUMAN.search(BOT_QUESTION.sub(" ", text)):
        return result(Intent.BOT_QUESTION)
    if HUMAN.search(text):
        return result(Intent.HUMAN)
    if CONFIRM.match(text):
        return result(Intent.CONFIRM)
    if DENY.match(text):
        return result(Intent.DENY)
    subject = _fact_question(text)
    if subject == "order_number":
        return result(Intent.ASK_FACT, subject)
    if POLICY_STRONG.search(text) and (not has_order or is_question(text)):
        return result(Intent.POLICY)
    if POLICY_WEAK.search(text) and not has_order and not POSSESSIVE.search(text) and is_question(text):
        return result(Intent.POLICY)
    if subject and not _names_its_own_answer(subject, text):
        return result(Intent.ASK_FACT, subject)
    if slots.notification_preference(text):
        return result(Intent.SET_NOTIFICATION)
    if slots.contact_channel(text) or REFUSED_CHANNEL.search(text):
        return result(Intent.SET_CHANNEL)
    if ADDRESS_CHANGE.search(text) and slots.address(text):
        return result(Intent.SET_ADDRESS)
    if REFUND.search(text):
        return result(Intent.REFUND)
    if TRACK.search(text):
        return result(Intent.TRACK)
    if STATUS.search(text):
        return result(Intent.STATUS)
    if LIST_ORDERS.search(text) and not has_order:
        return result(Intent.LIST_ORDERS)
    if ADDRESS_CHANGE.search(text) and not re.search(r"(?i)地址是|address\s+is", text):
        return result(Intent.SET_ADDRESS)
    if has_order:
        return result(Intent.STATUS)
    if RECALL.search(text):
        return result(Intent.RECALL)
    if GOODBYE.search(text):
        return result(Intent.GOODBYE)
    if THANKS.search(text):
        return result(Intent.THANKS)
    if ACKNOWLEDGE.match(text):
        return result(Intent.ACKNOWLEDGE)
    if APOLOGY.match(text):
        return result(Intent.APOLOGY)
    if GREETING.search(text):
        return result(Intent.GREETING)
    if injection:
        return result(Intent.INJECTION)
    return result(Intent.OTHER)
