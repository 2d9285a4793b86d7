"""Speech acts of one customer message: its language, whether it asks a question, whether it asks us to act. See
docs/offline-model.md.
"""

from __future__ import annotations

import re

# One Han character (the CJK Unified Ideographs block): the offline model's one test for Chinese text.
HAN = re.compile(r"[\u4e00-\u9fff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
# Not words of a language: order numbers, emails, and acronyms in capitals ("SF", "UPS").
_NOT_WORDS = re.compile(r"(?i:ORD[-_ ]?\d{4}[-_ ]?\d+)|[\w.+\-]+@[\w.\-]+|\b[A-Z]{2,}\b")


# A language asked for in so many words ("reply in english pls", "用中文回答").
_ASKED_FOR = {
    "en": re.compile(
        r"(?i)\b(?:reply|answer|respond|write|speak|talk|explain)(?:\s+(?:to\s+)?me)?\s+in\s+english\b|"
        r"\bin\s+english\s*(?:,\s*)?(?:pls|please|plz)\b|\benglish\s+(?:please|pls|plz)\b|用英文|英文回复|英语回复|说英文|说英语|用英语"
    ),
    "zh": re.compile(
        r"(?i)\b(?:reply|answer|respond|write|speak|talk|explain)(?:\s+(?:to\s+)?me)?\s+in\s+chinese\b|"
        r"\bin\s+chinese\s*(?:,\s*)?(?:pls|please|plz)\b|用中文|中文回复|中文回答|说中文|讲中文"
    ),
}


def language_asked_for(text: str) -> str | None:
    """The language the customer asks the reply to be in, if they name one (and only one)."""
    asked = [language for language, pattern in _ASKED_FOR.items() if pattern.search(text)]
    return asked[0] if len(asked) == 1 else None


def detect_language(text: str) -> str:
    """Return "zh" when the text is mostly Chinese, else "en"."""
    han = len(HAN.findall(text))
    if not han:
        return "en"
    words = len(_LATIN_WORD.findall(_NOT_WORDS.sub(" ", text)))
    return "zh" if han >= 2 or words <= 2 else "en"


# Words written with a full stop that ends no sentence: "Co. Clare", "17 St. John's Road", "Mt. Albert".
ABBREVIATIONS = ("Co", "St", "Mt", "Ft", "Rd", "Dr", "Ave", "Apt", "No", "Mr", "Ms")
# Before a full stop, none of those: ``NOT_ABBREVIATED + r"\."`` is a full stop that may end a sentence.
NOT_ABBREVIATED = "".join(rf"(?<!\b{word})" for word in ABBREVIATIONS)


# Latin words said the same in a Chinese chat ("ok", "OK", "yes", "thx", "SMS"): they tell no language.
_ANY_LANGUAGE = re.compile(
    r"(?i)\b(?:ok(?:ay)?|k|yes|yep|yeah|no|nope|thx|thanks|ty|hi|hello|hey|lol|pls|plz|sms|wechat|e-?mail|vip|"
    r"ord-\d{4}-\d+|\w+@[\w.]+)\b"
)


# A question how something of the customer's stands, offering the answers or asking if it still holds: "is my
# address still X or did it change to Y?", "are my notifications on or off rn", "am i still on sms or email??",
# "你们现在是短信联系我还是邮件？", "还是邮件？". Never a change, whatever values it names.
ASKS_HOW_IT_STANDS = re.compile(
    r"还是[^，。,.!！]{0,14}[？?]|现在是[^，。]{0,16}还是|"
    # "我有没有设置成电话联系": whether it was set so
    r"(?:我|之前|以前)?(?:有没有|是不是|是否|有无)[^，。？?]{0,4}(?:设置|设|改|换|调)(?:成|为|到)|"
    r"(?i:^\s*(?:[\w']+(?:\s+[\w']+)?\s*[-,:–]\s*)?(?:hey|hi|so|and|just|quick\s+one|ok(?:ay)?)?[\s,]*"
    r"(?:is|are|am|do|does|did|has|have|was|were)\s+(?:my|i|you|it|they|we|the|your)\b.{0,120}?"
    r"(?:\bor\b|\bstill\b)|"
    # "hmm my address still 221 baker st?": the verb left out
    r"^\s*(?:hmm+|so|and|ok(?:ay)?)?[\s,]*my\s+(?:[\w-]+\s+){1,2}?still\b[^?]{0,80}\?)"
)


# A bare yes or no in Chinese: "确认" from an English customer is the word the proposal asked for.
_ONLY_AN_ANSWER_ZH = re.compile(r"\s*(?:确认|确定|好的?|是的?|对|嗯+|行|取消|不(?:要|用)?|算了)[\s,，.。!！~]*")


# The same in English words a Chinese customer types too ("ok do it", "yes go ahead", "no thanks").
_ONLY_AN_ANSWER_EN = re.compile(
    r"(?i)\s*(?:(?:ok(?:ay)?|k|yes|yep|yeah|yup|sure|fine|alright|all\s+right|confirm(?:ed)?|go\s+ahead|do\s+it|"
    r"proceed|please|pls|plz|thanks|thank\s+you|thx|no|nope|nah|cancel(?:\s+it)?|never\s*mind|"
    # the change answered, named: "yes to the refund", "ok go ahead with the address change"
    r"(?:(?:to|with|on|for)\s+)?(?:the|that|this|my)\s+(?:refund|address(?:\s+change)?|mute|change|one|"
    r"notifications?(?:\s+change)?|channel(?:\s+change)?))[\s,.!~]*)+"
)


def tells_no_language(text: str) -> bool:
    """Whether ``text`` has no Chinese and no Latin words of its own ("ok", "OK!", "yes", "ORD-2025-0816", "确认",
    "ok do it")."""
    if _ONLY_AN_ANSWER_ZH.fullmatch(text) or _ONLY_AN_ANSWER_EN.fullmatch(text):
        return True
    return not HAN.search(text) and not re.search(r"[A-Za-z]", _ANY_LANGUAGE.sub(" ", text))


def in_both_languages(text: str) -> bool:
    """Whether ``text`` holds Chinese and Latin words of its own ("my order到哪了"; not "ORD-…的物流", "ok好的")."""
    return bool(HAN.search(text)) and bool(_LATIN_WORD.search(_NOT_WORDS.sub(" ", _ANY_LANGUAGE.sub(" ", text))))


_QUESTION_ZH = re.compile(
    r"吗|呢\s*[?？。]?\s*$|(?:了|货|到)没有?\s*[?？。]?\s*$|什么(?![^，。?？]{0,8}(?:都|就|的话))|啥|哪|几|多少|多久|多长|谁|怎么|怎样|如何|是否|有没有|是不是|对不对|能否|可否|可不可以|记得(?!通知|告诉|提醒|联系|发|给)|"
    # "还是…吧", "还是…靠谱" suggest ("还是打电话吧"), unless asked ("还是…吧？")
    r"还是(?!算了|不|别|用|要|先|[^，。?？]{0,12}(?:吧|靠谱|比较好|好一些|方便)\s*(?:[，,。.!！]|$))|[^不]不\s*[?？。]?\s*$"
)
_QUESTION_EN = re.compile(
    r"(?i)^\s*(?:what|whats|when|where|which|who|whom|whose|why|how|is|are|am|do(?!\s+not\b)|does|did|can|could|will|"
    r"would|should|have|has|may|any)\b|\b(?:do|does|did)\s+you\s+(?:know|remember|have)\b"
)
_REQUEST = re.compile(
    r"(?<![申邀])请(?!问)|帮我|帮忙|麻烦|把|给我|我要|我想|我需要|能不能|能否|可以帮|可不可以帮|希望"
    r"|(?i:\bplease\b|\bcan\s+you\b|\bcould\s+you\b|\bwould\s+you\b|\bwill\s+you\b|\bi\s+want\b|"
    r"\bi'?d\s+like\b|\bi\s+would\s+like\b|\bi\s+need\b|\bhelp\s+me\b|\blet'?s\b|"
    r"\bis\s+there\s+(?:a|any)\s+way\s+(?:you|to)\b|\b(?:can|could)\s+(?:someone|somebody|you\s+guys)\b|"
    r"^\s*(?:set|change|update|"
    r"switch|turn|make|mute|unmute|stop|enable|disable)\b)"
    # leave asked at the end: "退0790好吗？", "refund 0790 ok?", "…得唔得呀？"
    r"|(?:好吗|好不好|行吗|行不行|行不|可以吗|可以不|得唔得|得吗|(?i:ok|okay)吗?)\s*[呀啊呢嘛]?\s*[?？]+\s*$"
    r"|(?i:[\s,，](?:ok|okay|alright|pls|plz|please|yeah)\s*\?+\s*$)"
)


# A statement asking to be agreed with ("my address is X now, right?", "以后用短信联系我对吧", "…了吧？"): a question
# about how things stand, never a request.
# Sarcasm takes back what it follows: "change my address to …, because that's totally where I live. Not.",
# "yeah right", "as if", "才怪", "想得美". What it takes back is no request and no fact.
SARCASM = re.compile(
    r"(?i)(?:^|[.!?,]\s*|\s-+\s*)not[.!]*\s*$|\byeah,?\s+right\b(?!\s+(?:away|now|then|there))|\bas\s+if\b|"
    r"才怪|想得美|做梦吧|(?<![\u4e00-\u9fff])呵呵"
)
TAG_QUESTION = re.compile(
    # "通知关了吧" without a question mark asks to switch them off ("turn them off, then"), not if they are
    r"(?:对吧|是吧|对不对|没错吧|是不是|的吧)\s*[?？]*\s*$|(?<![关开停])了吧\s*[?？]*\s*$"
    r"|(?:已经|应该|早就|(?<!还)是)[^，。,.]{0,4}[关开停]了吧\s*$|吧\s*[?？]+\s*$"
    r"|(?i:[,，]?\s*(?:right|correct|isn'?t\s+(?:it|that)|yes|no|yeah|(?:don'?t|haven'?t|aren'?t|didn'?t|won'?t)"
    r"\s+(?:you|we|i))\s*\?+\s*$)"
)


# The agent saying it dropped the change it had proposed: the customer turned it down.
CHANGE_DROPPED = re.compile(
    r"已取消|取消了|没有(?:任何)?改动|什么都没有改|(?i:nothing (?:was |has been )?changed|\bI(?:'ve| have) "
    r"(?:cancelled|canceled|dropped)\b)"
)


# The agent saying a change was made: what the customer asked for it is then no request left unapplied.
CHANGE_MADE = re.compile(r"已完成|(?i:\bDone\b)")


def is_question(text: str) -> bool:
    return bool(re.search(r"[?？]", text) or _QUESTION_ZH.search(text) or _QUESTION_EN.search(text))


def is_request(text: str) -> bool:
    return bool(_REQUEST.search(text))


_WH_START = re.compile(r"(?i)^\s*(?:what|whats|when|where|which|who|whom|whose|how)\b")
# A question about how things stand ("我之前把通知静音了吗"), whatever request words it holds.
_STATE_QUESTION = re.compile(r"(?:之前|以前|是不是|有没有|现在|目前|已经|你们会|会不会)[^，。]*吗[?？]?\s*$")


def asks_about(text: str) -> bool:
    """A question that is not a request to change something ("are my notifications muted?")."""
    return is_question(text) and (
        not is_request(text) or bool(_WH_START.match(text)) or bool(_STATE_QUESTION.search(text))
    )
