"""How a customer answers a proposed change: a confirmation, a decline or neither, read by the application (never
the model) while a change waits. A confirmation says nothing but agreement and the change itself, and any
value it names must be the waiting change's; a decline is a no that does not start a request of its own. The
paraphrase corpus in tests/offline_model/paraphrases measures both. See README.md ("The demo shop") and
docs/offline-model.md.
"""

from __future__ import annotations

import difflib
import functools
import itertools
import re
from collections.abc import Mapping, Sequence
from typing import Any

import opencc


def _longest_first(words: str) -> str:
    """An alternation of ``words`` (space-separated), longest first: "退款" is tried before "退"."""
    return "|".join(sorted(words.split(), key=len, reverse=True))


# Words that open an answer, perhaps after a filler ("actually", "wait", "等等").
_FILLER = (
    r"(?:(?:actually|wait|oh|oops|whoops|um+|hmm+|ah|eh|uh+|erm?|ugh|meh|sorry|please|ok(?:ay)?|fine|alright|"
    r"all right|well|hold on|"
    r"thanks|thank\s+you|thx|cheers|"  # "Thanks! Yes, go ahead.", "唔該，…": thanks first, the answer after
    r"等等|等一下|哎|呃|嗯|那个|额|哦|噢|那|我|好吧|好的|行吧|谢谢|多谢|感谢|唔该)"
    r"[\s,，.。!！-]*)*"
)
_YES_EN = (
    r"y(?:es+|eah|ep|up|a)?|sure(?:\s+thing)?|ok(?:ay)?|k|alright|all\s+right|right|correct|exactly|"
    r"confirm(?:ed)?|i\s+confirm|affirmative|absolutely|definitely|of\s+course|certainly|agreed?|i\s+agree|"
    r"please\s+(?:do|proceed|go\s+ahead|continue)|proceed|go\s+(?:ahead|for\s+it|on)|do\s+it|"
    r"sounds\s+(?:good|great|fine|right)|that'?s\s+(?:right|correct|fine|good|great|perfect|ok)|perfect|fine|"
    r"that\s+works|works\s+for\s+me|yes\s+please|make\s+the\s+change|approved?"
)
_YES_ZH = (
    r"我?确认(?!一下|下)|我?确定|我?同意|是的?|嗯呢|OK的|ok的|对的?|没错|好的?|好滴|好哒|好嘞|好呀|好啊|行(?:吧|的)?|可以(?:的)?|没问题|同意|"
    r"嗯+|就这么办|就这样|就按这个|ok|OK|麻烦(?:你|您)?了?|请继续|继续|改吧|办吧|退吧|弄吧|(?:两个|两项)?都确认|全部确认|"
    r"(?:就)?(?:照|按)(?:你说的)?(?:做|办)"
)
# What may follow the yes: agreement, politeness and the change itself (its values are checked separately).
_AGREEMENT_EN = re.compile(
    r"(?i)\b(?:i'?m|i\s+am|please|pls|plz|kindly|thanks?|thank\s+you|thx|ty|cheers|go\s+ahead|go\s+for\s+it|go\s+on|do\s+it|"
    r"do\s+that|proceed|continue|confirm(?:ed)?|i\s+confirm|that'?s|that\s+is|it'?s|right|correct|exactly|"
    r"perfect|great|good|fine|lovely|sounds?|sure|ok(?:ay)?|yes+|yeah|yep|yup|absolutely|definitely|of\s+course|"
    r"what\s+i\s+(?:want|wanted|asked\s+for|need)|works(?:\s+for\s+me)?|agreed?|approved?|all\s+good|"
    r"make|made|change|changes|changed|switch|update|set|refund|mute|unmute|turn|process|submit|save|apply|"
    r"with|the|a|it|that|this|them|those|my|me|to|for|and|then|now|then|off|on|from\s+now\s+on|going\s+forward|"
    r"notifications?|alerts?|address|order|channel|contact|money|amount|by|via|using|use|as|"
    r"is|be|will|would|you|i|want|need|can|just|so|too|all|please|one|new|do|go|ahead|what|back|again|both|"
    r"proposed|suggested|offered|said|described|mentioned|sure|certain|positive)\b"
)
_AGREEMENT_ZH = re.compile(
    _longest_first(
        "吧 了 的 啊 呀 哈 嗯 嗯嗯 呢 谢谢 多谢 感谢 麻烦 麻烦你 麻烦您 麻烦了 麻烦你了 麻烦您了 麻烦啦 辛苦 辛苦了 请 "
        "继续 执行 操作 办理 处理 提交 确认 确定 就这样 就这么办 这么办 就这么定 定了 按你说的 按这个 按这个来 没问题 "
        "照做 照办 照你说的 按你说的做 按你说的办 "
        "可以 行 好 好嘞 是 对 同意 没错 就是 这个 帮我 给我 替我 把 一下 就 那就 那 这样 弄 办 搞 去 来 "
        "改 换 退 退款 申请 设置 设成 设为 改成 换成 改为 为 成 用 通过 以后 今后 之后 从现在起 联系我 联系 通知 "
        "地址 订单 单号 打开 开启 关闭 关掉 关了 静音 原账户 原路 退回 退到 就行 即可 保存 存 "
        "也 都 呗 哦 喔 滴 哒 嘞 啦 我 您 你 改到 寄到 送到 发到 到 新 新的 "
        "那个 这个 那一个 这一个 那边 这边 那条 这条 的那个 两个都 两个都要 两项都 两样都 两样 全部 那单 这单 那笔 这笔"
    )
)
# A value named in an answer: it must be the waiting change's.
_CHANNEL_WORDS = {
    "email": r"(?i:e-?mail)|邮件|邮箱",
    "sms": r"(?i:\bsms\b|\btexts?\b|text\s+messages?)|短信",
    "wechat": r"(?i:we\s*chat)|微信",
    "phone": r"(?i:\bphone\b|\bcall\b|\bcalls\b)|电话",
}
_NOTIFICATION = {
    "mute": r"(?i:\bmute|\boff\b|silence)|静音|关闭|关掉|关了|关上|关吧|关一下|关(?=通知|推送|提醒|消息)",
    "on": r"(?i:\bunmute|\bon\b)|打开|开启|开着|开吧|开一下|开回来|开(?=通知|推送|提醒|消息)",
}
_NUMBER = re.compile(r"\d[\d,.]*\d|\d")
_BLOCKER = re.compile(
    # a sign-off ends the chat, it agrees to nothing: "ok thats all", "ok thanks that is all", "好的没别的了"
    r"(?i:\bthat'?s\s+all\b|\bthats\s+all\b|\bthat\s+is\s+all\b|\bnothing\s+else\b|\b(?:good)?bye\b|\bsee\s+(?:you|ya)\b|"
    r"\bfor\s+(?:today|now)\b)|没(?:有)?(?:别的|其他|其它)了?|没事了|拜拜|再见|回头聊|有问题再|先这样|就这些|"
    # "好的谢谢，就这样": thanks, then "that's it" closes the chat; "那就这样" alone agrees
    r"(?:谢谢|多谢|感谢)[\s,，.。!！~]*(?:那就|那)?就?这样|"
    # sarcasm says no in yes's words: "yeah right", "sure, sure", "yeah sure 🙄", "as if"
    r"(?i:\by(?:eah?|a|ep)\s*,?\s*right\b(?!\s+(?:away|now|then|there))|\bsure\s*,?\s*sure\b|\bas\s+if\b|\bwhatever\b|\blol\b|\blmao\b)|"
    r"[\U0001F644\U0001F612\U0001F643\U0001F60F\U0001F611\U0001F928]|呵呵|"
    r"[?？]|(?i:\b(?:but|however|instead|rather|except|wait|hold\s+on|hang\s+on|first|actually|not|never|"
    r"no(?!\s+(?:problem|worries|prob))|"
    r"don'?t|cancel|also|another|else|still|later|how|which|when|why|where|who)\b|n't\b|"
    r"\bwhat\b(?!\s+i\s+(?:want|wanted|asked|need)|\s+you\s+(?:proposed|suggested|offered|said|described|mentioned)\b))"
    r"|不过|但是|但|而是|等等|等一下|先别|先不|不要|不用|别|不是|不对|吗|多久|为什么|怎么|哪|什么|还能|能不能|取消|算了|"
    r"还有|另外|顺便|再帮|再把|再问|以前|之前"
)

_DECLINE_EN = (
    r"(?:no(?!\s+(?:problem|worries|prob))|nope|nah|negative|cancel|abort|don'?t|do\s+not|never\s*mind|nvm|"
    r"forget|not\s+(?:now|yet|right\s+now|today|for\s+now)|stop|leave\s+it|scratch\s+that|i'?ll\s+pass|pass|"
    r"hold\s+off|let'?s\s+not|i'?d\s+rather\s+(?:not|you\s+didn'?t)|rather\s+not|call\s+it\s+off|i\s+decline|"
    r"decline|on\s+second\s+thought|(?:i\s+(?:have\s+|'ve\s+)?)?changed?\s+my\s+mind|skip\s+it|drop\s+it|"
    r"undo(?:\s+(?:that|it|this))?|"  # "oops undo that" while the change waits: it is not to be made
    r"not\s+any\s*more|i\s+don'?t\s+want|let\s+me\s+think|i'?ll\s+think|maybe\s+later|"
    r"not\s+at\s+(?:this|the)\s+(?:time|moment)|"
    r"(?:leave|keep)\s+(?:\S+\s+){0,3}?(?:as\s+(?:it\s+)?is|alone|unchanged|the\s+same|now|as\s+it\s+stands|"
    r"(?:how|the\s+way|like)\s+(?:it\s+is|it\s+was|they\s+are|that)|as\s+(?:it\s+was|before)))\b"
)
_DECLINE_ZH = (
    r"(?:不(?!用谢|客气|错|过|好意思|知道|清楚|明白|太|是很|会|能|行吗)|否|取消|撤销|撤回|算了|别(?![的人处])|先别|先不|暂时不|"
    r"没必要|免了|罢了|不必|拒绝|我不同意|不同意|还是算了|还是不|先放着|我不要|我不想|我再(?:想想|考虑)|再考虑|"
    # Cantonese: "唔好改住，我諗下先", "都係算啦"
    r"改主意|再说吧|唔(?:好|使|要|用|係|改|退)|算啦|都[係是](?:唔|算)|我?(?:再)?[諗谂]下|"
    # the setting kept as it stands: "嗯其实维持现状吧", "保持原样", "照旧"
    r"维持(?:现状|原状|原样)|保持(?:现状|原状|原样|不变|原来的?)|照旧)"
)
# The order a no is about may come first: "0942先不退了", "ORD-2025-0790 算了".
_ORDER_FIRST = r"(?:(?:ORD[-_ ]?\d{4}[-_ ]?\d{4}|\d{3,6})\s*(?:那个|这个|那单|这单|的)?\s*)?"
_DECLINE = re.compile(  # "thanks, but no": the no after the thanks
    rf"^\s*{_ORDER_FIRST}{_FILLER}(?:(?i:but)[\s,，]+|不过|但是)?(?:其实|还是)?(?:{_DECLINE_ZH}|{_DECLINE_EN})",
    re.IGNORECASE,
)
# A "don't"/"stop" that opens a request of its own: "don't call me", "stop texting me", "不要再发短信".
_OWN_REQUEST = re.compile(
    r"(?i)^\s*(?:please\s+)?(?:don'?t|do\s+not|stop|never|i\s+don'?t\s+want)\s+(?:\w+\s+){0,2}?"
    r"(?:send|call|text|email|e-mail|message|phone|ring|contact|notify|calling|texting|emailing|messaging|"
    r"sending|notifications?|alerts?|messages|emails|texts|calls|updates)"
    r"|^\s*(?:不要|别|不想|我不想|我不要)再?(?:给我)?(?:打电话|来电|发短信|发邮件|发消息|发通知|推送|通知|联系|收到|用)"
)
# After a no, a question, a number or another channel is a new request or a correction, not only a decline.
_DECLINE_BLOCKER = re.compile(
    r"[?？]|吗|呢|(?i:\b(?:instead|use|but)\b|(?:^|[,，.。!！;；]\s*)(?:how|what|which|why)\b)"
    r"|(?<!不要)(?<!别)(?<!不用)(?<!不想)(?:改成|换成|改用|换用|(?:改|换)(?=微信|短信|邮件|邮箱|电话|手机))|而是|还是用|还是要"
    # a value put in place of another: "no wait, 14 Oak Lane not 12", "不对，是101号不是100号"
    r"|(?i:\d[^,.;!?]*\bnot\s+(?:\w+\s+)?\d)|是[^，。]{0,16}\d[^，。]*不是"
    # a place put in place of another: "no, Bath not Bristol", "不对，不是徐汇区，是黄浦区"
    r"|\b(?!(?:No|Nope|Yes|Yeah|Ok|Okay|Well|So|Oh|Wait)\b)[A-Z][a-z'-]+,?\s+(?:not|instead\s+of)\s+[A-Z]"
    r"|不是[^，。]{1,10}[省市区县镇路街道][，,\s]*(?:而)?是|是[^，。]{1,10}[省市区县镇路街道][，,\s]*(?:而)?不是"
)
# Words that say not to make the change: "别改", "don't", "leave it as it is".
_NOT_TO_CHANGE = (
    r"(?i:不(?:退|改|换|用|要|动)|别|算了|先不|保持原样|\b(?:don'?t|dont|do\s+not|never\s*mind|cancel)\b|"
    r"\b(?:leave|keep)\s+(?:\S+\s+){0,3}?(?:as\s+(?:it\s+)?is|alone|unchanged|the\s+same)\b)"
)
# A number after a no corrects the proposal ("no, the order is ORD-…") unless the no is said again.
_NEGATED_AGAIN = re.compile(rf"{_NOT_TO_CHANGE}|(?i:\b(?:not|no)\b)")
# A yes that only thanks ("ok thanks", "好的谢谢") acknowledges what was said; it agrees to nothing.
_THANKS_ONLY = re.compile(
    r"(?i)^\s*(?:ok(?:ay)?|k|alright|fine|cool|great|好的?|嗯+|行)[\s,，.。!！~]*"
    r"(?:(?:thanks?|thank\s+you|thx|ty|cheers|谢谢|多谢|感谢)(?:\s*(?:你|您|你们|啦|了|哈|呀|a\s+lot|so\s+much|very\s+much))?"
    r"[\s,，.。!！~]*)+$"
)
_YES = re.compile(rf"^\s*{_FILLER}(?:{_YES_ZH}|(?i:(?:{_YES_EN})\b))", re.IGNORECASE)
# An acknowledgement and nothing else ("ok", "好的", "嗯", "got it"): a yes to a proposal just made, but after
# a reply about something else it may only acknowledge that reply.
_ACKNOWLEDGEMENT_ONLY = re.compile(
    r"(?i)^\s*(?:(?:oh|ah|well|so|那|那就)[\s,，]*)?(?:ok(?:ay)?|k+|alright|all\s+right|fine|cool|great|nice|got\s+it|"
    r"i\s+see|noted|understood|好的?|好吧|好滴|好嘞|嗯+|哦+|噢|行|知道了|明白了?|了解|收到)"
    r"(?:[\s,，]*(?:then|thanks?|thank\s+you|吧|啦|了|谢谢))?[\s,，.。!！~]*$"
)


# A no to every change waiting ("取消全部", "cancel both", "never mind all of it").
_ALL = re.compile(r"全部|都|所有|两个|两项|一起|统统|(?i:\ball\b|\bboth\b|\beverything\b|\beach\b)")


# Where a decline's own words end: "no. and list all refunds" declines one change; its "all" is the list's.
_END_OF_THE_NO = re.compile(r"[.。!！;；?？\n]|(?i:\band\b|\balso\b)|另外|还有|然后|顺便")


# A no to every change waiting, wherever the message says it ("…hmm, no, leave everything as it is for now",
# "算了，都不改了"); never "everything else" ("其他都不用改").
_EVERY_CHANGE_DROPPED = re.compile(
    r"(?i:\b(?:leave|keep)\s+(?:it\s+)?(?:everything|all\s+of\s+it|both|them\s+all)\b(?!\s+else)|"
    r"\b(?:cancel|drop|forget|scrap|skip)\s+(?:everything|all\s+of\s+(?:it|them|that)|both|them\s+all)\b(?!\s+else))"
    r"|(?<!其他)(?<!其它)(?<!别的)(?<!其余)(?:都|全部|全都|统统|两个都|两项都)(?:先)?(?:不|别)(?:用|要)?(?:改|换|动|退|变|弄|办)?了"
    r"|(?:全部|都|两个都|两项都)(?:取消|算了)"
)


def declines_all(text: str) -> bool:
    """Whether a decline drops the change asked for after the waiting one too ("cancel both", "取消全部", "leave
    everything as it is")."""
    opening = is_cancellation(text) and bool(_ALL.search(_END_OF_THE_NO.split(text, maxsplit=1)[0]))
    return opening or bool(_EVERY_CHANGE_DROPPED.search(text))


# The words that confirm on their own, as the reminder asks ("回复“确认”", "reply 'yes'"): after a reminder that
# came with an answer to something else, only these answer the change; "没问题", "OK可以的" may answer the rest.
_EXPLICIT = re.compile(
    r"确认|确定|同意|是的|^\s*是[啊呀阿]?[。！!\s]*$|就这么改|改吧|办吧|退吧|照做|照办|(?:照|按)你说的(?:做|办)|(?i:\byes\b|\byep\b|\byeah\b|\bconfirm|\bgo\s+ahead|\bdo\s+it\b|\bgo\s+for\s+it\b|"
    r"\bproceed|\bplease\s+do\b|"
    # the change's own verb after the yes: "ok refund it", "sure, change it", "是，改", "好，退"
    r"\b(?:change|update|refund|switch|mute|unmute|save|apply|make)\s+(?:it|that|them|this)\b)|"
    r"[，,\s](?:帮我)?(?:改|退|换|办|关|开)(?:掉|了|吧|啦|喇|呗)?[。！!\s]*$"
)


# A yes that says what we said was right ("yes that's right", "yep, correct", "对，没错"), naming no change.
_SAYS_IT_IS_RIGHT = re.compile(
    r"没错|对的|对对|是这样|是这个|是那个|没问题|(?i:\bright\b(?!\s+(?:now|away|then|there|here))|"
    r"\b(?:correct|exactly|true|accurate|indeed)\b|that'?s\s+it\b)"
)
_NAMES_AN_ACTION = re.compile(
    r"确认|同意|改|换|退|关|开|静音|申请|办|(?i:\bconfirm|\bgo\s+ahead|\bdo\s+it\b|\bproceed|\bplease\s+do\b|\brefund|"
    r"\bmute|\bturn|\bchange|\bswitch|\bupdate|\bset\b|\bapply|\bfile|\bsubmit)"
)


# What a yes must name to answer a change after the conversation turned to something else: the change's kind,
# or the word the reminder asks for in Chinese ("确认"; "confirm"). "Yes", "yes please do that", "好的" may answer
# the question or offer of the reply in between ("could you give me the new address?", "I can pass you to a
# colleague") or the customer's own counter-request ("could I just get 100 back instead?").
_CONFIRM_WORD = r"确认|(?i:\bconfirm(?:ed)?\b)"
_KIND_WORDS = {
    "request_refund": r"退款|退钱|退了吧|退吧|(?i:\brefund|money\s+back)",
    "update_notification_preference": "|".join(
        [r"通知|推送|提醒|(?i:\bnotif\w*|\balerts?\b|\bupdates\b)", *_NOTIFICATION.values()]
    ),
    "update_contact_channel": "|".join([r"联系|(?i:\bcontact|\bchannel)", *_CHANNEL_WORDS.values()]),
    "update_shipping_address": r"地址|(?i:\baddress)",
    "update_order_address": r"地址|(?i:\baddress)",
}


# A reply that offers a colleague ("…needs a colleague, and I can pass you to one", "需要的话我可以为您转接"): a yes
# to it takes the offer up, which the model does; it is no yes to a change.
_OFFERS_A_PERSON = re.compile(
    r"为您转接|帮您转接|(?i:\bpass\s+you\s+(?:on\s+)?to\b|\bput\s+you\s+through\b|\bhand\s+you\s+over\b)"
)


# A reply that asks or offers something of its own, which a "yes" after it may answer instead of the change.
_ASKS_OR_OFFERS = re.compile(
    r"[?？]|需要我|要不要|是否需要|您看可以|请(?:提供|告诉|发|给|确认|选择)|没有完全理解|没听懂|"
    r"(?i:\b(?:shall|should)\s+i\b|\bwould\s+you\s+like\b|\bdo\s+you\s+want\b|\bif\s+you(?:'d)?\s+(?:want|like)\b|"
    r"\bwant\s+me\s+to\b|\bplease\s+(?:give|tell|send|provide|confirm|choose|let\s+me\s+know)\b|\bcould\s+you\b|"
    r"\bdidn'?t\s+(?:quite\s+)?understand\b)"
)


def asks_or_offers(reply: str) -> bool:
    """Whether the agent's reply asked a question, offered something or asked for something a bare "yes" could
    answer, or did not understand the request (a yes may insist on it)."""
    return bool(_ASKS_OR_OFFERS.search(reply))


def offers_a_person(reply: str) -> bool:
    """Whether the agent's reply offered to hand the customer to a colleague."""
    return bool(_OFFERS_A_PERSON.search(reply))


# A reply that offers to set out a change for the customer to confirm ("A refund can be requested. If you'd like
# one, say so and I'll set it out for you to confirm.", "需要我为您申请退款吗？"): a yes to it asks the model for the
# proposal, which waits for a yes of its own; it is no yes to a change.
_OFFERS_A_CHANGE = re.compile(
    r"我会先列出来请您确认|我会为您发起更改|需要我(?:为您|帮您|帮你|给您)?(?:申请|发起|办理|修改|更改|改|关|打开)|"
    r"要不要(?:我)?(?:为您|帮您|帮你)?(?:申请|发起|修改|更改|改)|"
    r"(?i:\bset\s+it\s+(?:out|up)\s+for\s+you\s+to\s+confirm\b|"
    r"\b(?:shall|should)\s+i\s+(?:go\s+ahead\s+and\s+)?(?:request|start|file|submit|change|update|set|switch|turn|mute)\b|"
    r"\bwould\s+you\s+like\s+(?:me\s+to\s+(?:request|start|file|submit|change|update|set|switch|turn|mute)|"
    r"(?:to\s+)?(?:request\s+)?a\s+refund)\b|\bwant\s+me\s+to\s+(?:request|start|file|submit|change|update|set|"
    r"switch|turn|mute)\b)"
)


def offers_a_change(reply: str) -> bool:
    """Whether the agent's reply offered to propose a change (which a yes then asks for, not makes)."""
    return bool(_OFFERS_A_CHANGE.search(reply))


def names_the_change(text: str, tool: str) -> bool:
    """Whether ``text`` names the waiting change ``tool`` (its kind), or says "确认"/"confirm" itself."""
    return bool(re.search(_CONFIRM_WORD + "|" + _KIND_WORDS.get(tool, r"(?!)"), text))


def names_another_kind(text: str, tool: str) -> bool:
    """Whether ``text`` names a kind of change other than ``tool``'s and not ``tool``'s own ("不要改联系方式了" while
    a mute waits): a no in it is not the waiting change's."""
    own = _KIND_WORDS.get(tool)
    return not names_the_kind(text, tool) and any(
        re.search(words, text) for kind, words in _KIND_WORDS.items() if words != own
    )


def names_the_kind(text: str, tool: str) -> bool:
    """Whether ``text`` names the kind of the waiting change ``tool`` ("退款", "the address"), not only "confirm"."""
    return bool(re.search(_KIND_WORDS.get(tool, r"(?!)"), text))


def agrees_only_loosely(
    text: str, *, after_something_else: bool = False, proposal: Mapping[str, Any] | None = None
) -> bool:
    """Whether ``text`` would agree to a change only loosely: an acknowledgement ("ok", "好的") or a yes without
    a word that confirms on its own ("没问题", "sounds good"). After a reminder that came with an answer to
    something else (``after_something_else``), that is not an answer to the change, which is named again
    instead; nor is a yes that only says the answer was right ("is my address still X?" … "yes that's right").
    With the waiting change's ``proposal``, an "ok" that asks for another change ("ok and switch my contact
    channel to sms too" while a refund waits) agrees to nothing: it is a request of its own."""
    if re.search(r"[?？]", text) and not _YES.match(text):
        return False  # "what's my contact channel … right now?": a question, no agreement of any kind
    if after_something_else and _SAYS_IT_IS_RIGHT.search(text) and not _NAMES_AN_ACTION.search(text):
        return True
    return bool(_ACKNOWLEDGEMENT_ONLY.match(text)) or (is_confirmation(text, proposal) and not _EXPLICIT.search(text))


# The characters of a yes or a no typed in traditional Chinese ("確認", "對，確定", "不用了，謝謝", "別改"), and of
# what such an answer may name ("郵件", "短信通知", "這個地址", "用港幣退"), in the simplified ones the answers are
# read in: these first (帳 as 账, never OpenCC's 帐), then OpenCC's table for every other character.
_SIMPLIFIED = str.maketrans(
    "確認對嗎這個們謝別換聯繫郵電話簡訊開關靜執續請説說沒還號碼麼會從現後來給讓過為應與當實際問題錯講張單筆兩樣該幣圓歐鎊韓錢帳",
    "确认对吗这个们谢别换联系邮电话简讯开关静执续请说说没还号码么会从现后来给让过为应与当实际问题错讲张单笔两样该币圆欧镑韩钱账",
)


# Cantonese words of a yes and of what may follow it, in the Mandarin ones the answers are read in: "係呀，就咁做",
# "冇問題，搞掂佢", "好啊，仲有…" ("and also …").
_CANTONESE_ANSWER = (
    (re.compile(r"(?<![關关聯联唔])係(?:呀|啊|嘅|喇)"), "是的"),  # "係呀" says yes as plainly as "是的"
    (re.compile(r"^(\s*)系(?:呀|啊|喇)"), r"\1是的"),  # the same typed in simplified characters ("系呀，退…")
    (re.compile(r"^(\s*)系(?=[。！!\s]*$)"), r"\1是"),  # "系" alone
    (re.compile(r"嗰"), "那"),
    (re.compile(r"(?<![關关聯联唔])係"), "是"),  # "唔係" stays a no as the declines read it
    (re.compile(r"冇"), "没"),
    (re.compile(r"就咁(?:做|办|辦|啦|喇)?"), "就这样"),
    (re.compile(r"搞掂(?:佢|啦|喇)?"), "办吧"),
    (re.compile(r"仲有"), "还有"),
    (re.compile(r"^(\s*)得(?:啦|呀|喇)?(?=[\s,，.。!！]|$)"), r"\1好"),  # "得，唔該": a yes, and thanks
    (re.compile(r"唔该(?:你)?(?![你晒哂嗮哋啦呀喇咯啊])(?=[\u4e00-\u9fff])"), "请"),  # "唔該將通知開返": please
    (re.compile(r"唔该"), "谢谢"),
    (re.compile(r"咗"), "了"),  # "除咗滤网之外全部退": all but
    (re.compile(r"(?<=退)返(?=[^，。,.]{0,4}(?:港币|港元|港纸|美元|美金|欧元|英镑|人民币))"), "成"),  # "退返港幣俾我"
)


_T2S = opencc.OpenCC("t2s")


@functools.cache
def _one_simplified(character: str) -> str:
    """One traditional character in its simplified form by OpenCC's table; kept as typed where that form is one
    the readers never see (Cantonese 嗰 and 喎 have none in the common block), and 係, which the readers take as
    Cantonese "是" (OpenCC's 系 is the Mandarin word)."""
    if character == "係":
        return character
    converted = _T2S.convert(character)
    return converted if len(converted) == 1 and "\u4e00" <= converted <= "\u9fff" else character


def in_simplified(text: str) -> str:
    """``text`` with the traditional characters of an answer in simplified ones and its Cantonese words of
    agreement in Mandarin (the rest as typed)."""
    text = "".join(_one_simplified(c) if "\u4e00" <= c <= "\u9fff" else c for c in text.translate(_SIMPLIFIED))
    for cantonese, mandarin in _CANTONESE_ANSWER:
        text = cantonese.sub(mandarin, text)
    return text


# "nothing else needs changing" after a yes ("确认，别的不用改了", "yes, that's all"): part of the yes, no no.
_NOTHING_ELSE = re.compile(
    # a sign-off ("好的就这些了", "that's all") stays one: it agrees to nothing
    r"(?:别的|其他的?|其它的?|其余的?)(?:都|就)?(?:不用|不需要|无需|不必)(?:再)?(?:改|动|换|变|修改)了?|"
    r"(?i:\bnothing\s+else\s+(?:needs?\s+(?:changing|to\s+change|to\s+be\s+changed)|to\s+change)\b)"
)


def is_confirmation(text: str, proposal: Mapping[str, Any] | None = None) -> bool:
    """An agreement to the waiting change, and nothing else.

    ``proposal`` is the waiting change's arguments: a channel, setting or number the answer names must be
    among them. Without one (nothing waits, or the corpus) the values are not compared.
    """
    text = _NOTHING_ELSE.sub(" ", text).strip(" ,，.。!！")
    opener = _YES.match(text)
    if not opener or _BLOCKER.search(text) or _THANKS_ONLY.match(text):
        return False
    rest = text[opener.end() :]
    if proposal is not None and _names_another_change(text, proposal):
        return False
    if proposal is not None:  # part of the waiting change's value, as the customer names it ("科苑路那个")
        rest = _without_value(rest, proposal)
    rest = _NUMBER.sub(" ", re.sub(r"(?i)ORD[-_ ]?\d{4}[-_ ]?\d+|[¥$€£]|rmb|yuan|元|块", " ", rest))
    for pattern in [*_CHANNEL_WORDS.values(), *_NOTIFICATION.values()]:
        rest = re.sub(pattern, " ", rest)
    rest = _AGREEMENT_ZH.sub(" ", _AGREEMENT_EN.sub(" ", rest))
    return not re.search(r"[A-Za-z\u4e00-\u9fff]", rest)


# Arguments in the customer's own words (a refund's reason, "could I get $50 back"): a number an answer names
# is never matched against them, and the same change asked for in other words is the same (``chat.tools``).
CUSTOMERS_WORDS = ("reason",)


def _without_value(text: str, proposal: Mapping[str, Any]) -> str:
    """``text`` with the parts of the waiting change's values it names blanked: the longest pieces of two
    characters or more of a Chinese run ("科苑路88号"), and whole English words ("the tent refund", of a refund
    asked for because of the tent). Only the values, not the summary, whose other words ("keep" among them)
    are not the change's; numbers are compared apart (``_names_another_change``), never with the reason."""
    values = " ".join(str(v) for k, v in proposal.items() if k != "summary")  # the reason's words name it too
    words = {w.lower() for w in re.findall(r"[A-Za-z]{2,}", values)}
    text = re.sub(r"[A-Za-z]+", lambda m: " " if m.group(0).lower() in words else m.group(0), text)
    return re.sub(r"[\u4e00-\u9fff0-9]{2,}", lambda m: _blank_pieces(m.group(0), values), text)


def _blank_pieces(run: str, values: str) -> str:
    out, i = [], 0
    while i < len(run):
        j = next((j for j in range(len(run), i + 1, -1) if run[i:j] in values), None)
        if j is None:
            out.append(run[i])
            i += 1
        else:
            out.append(" ")
            i = j
    return "".join(out)


# Words naming the kind of a change: an answer naming a kind the waiting change is not about asks for another.
_KINDS = {
    "preference": r"(?i:notif\w*|alerts?|\bmute|\bunmute)|通知|静音|提醒",
    "channel": "|".join(_CHANNEL_WORDS.values()),
    "address": r"(?i:\baddress\b|deliver\s+to|ship\s+to)|地址|寄到|送到",
    "reason": r"(?i:\brefund|money\s+back|\breturn\b)|退款|退货|退钱",
}


# What a bare yes may carry: politeness, nothing that names a change.
_POLITE = re.compile(
    r"(?i)\b(?:please|pls|plz|thanks?|thank\s+you|thx|go\s+ahead(?:\s+with\s+(?:that|it|this))?|do\s+it|do\s+that|"
    r"proceed|continue|confirm(?:ed)?|sure|"
    r"ok(?:ay)?|yes+|yeah|yep|yup|right|correct|fine|great|perfect|absolutely|definitely)\b"
    r"|吧|了|的|啊|呀|哈|嗯|确认|确定|继续|执行|谢谢|好|是|对|可以|行|没问题|同意|没错"
)


def is_bare_confirmation(text: str) -> bool:
    """A yes and nothing else ("yes", "好的，确认", "sure, go ahead"): what is read when nothing waits."""
    opener = _YES.match(text)
    if not opener or _BLOCKER.search(text) or _THANKS_ONLY.match(text):
        return False
    return not re.search(r"[A-Za-z\u4e00-\u9fff\d]", _POLITE.sub(" ", text[opener.end() :]))


# Where a yes may end and another request begin: "yes go ahead, and also switch me to SMS", "确认，另外帮我…".
_AND_THEN = re.compile(
    r"[\s,，.。;；!！]*(?:(?i:\band\s+also\b|\balso\b|\band\s+then\b|\bplus\b|\bthen\b|"
    r"\band\b(?!\s+(?:no|not|nope|don'?t|never|maybe|or)\b))|另外|还有|顺便|然后|再帮我|再把)"
    r"[\s,，]*"
)


# Part of the money only ("另外能不能只退一半", "also just 30 of it"): said after a yes to a refund, it takes the
# yes back; the refund proposed is of the whole amount.
_PART_OF_THE_MONEY = re.compile(
    r"一半|部分|只退|少退|退一(?:盒|件|个|点|些)|退其中|(?i:\bhalf\b|\bpartial|\bpart\s+of\b|\bonly\s+(?:refund\s+)?[$£€¥]?\d|"
    r"\bjust\s+[$£€¥]?\d|\bnot\s+the\s+(?:full|whole)\b)"
)


# Money asked beside a yes to a refund ("yes, and make it 500 bucks for the hassle", "确认，另外再补偿我50块"): an
# amount or a compensation the refund proposed does not hold, so the yes is to another refund than the one waiting.
_MONEY_NAMED = re.compile(
    r"[$£€¥￥]\s?\d|\d\s*(?:块|元|蚊|刀|美元|美金|(?i:bucks|dollars?|quid|pounds?|euros?|usd|rmb|yuan)\b)"
)
# Money named with its currency ("¥89", "89 yuan", "45 RMB", "$45", "45美元"): a refund proposed or confirmed is of
# the order's money, in the currency it was paid in; an amount in another is another request.
_MONEY_IN = {
    "CNY": re.compile(r"[¥￥]\s?\d|\d\s*(?:块|元|蚊|人民币|(?i:rmb|yuan|cny)\b)|(?i:\b(?:rmb|cny)\s?\d)|人民币\s?\d"),
    "USD": re.compile(
        r"(?<![A-Za-z])\$\s?\d|US\$\s?\d|\d\s*(?:美元|美金|刀|(?i:bucks|dollars?|usd)\b)|(?i:\busd\s?\d)"
    ),
    "EUR": re.compile(r"€\s?\d|\d\s*(?:欧元|(?i:euros?|eur)\b)"),
    "GBP": re.compile(r"£\s?\d|\d\s*(?:英镑|(?i:pounds?|quid|gbp)\b)"),
    "HKD": re.compile(r"(?i:HK\$|\bhkd\s?)\s?\d|\d\s*(?:港币|港元|(?i:hkd)\b)"),
}


# Money named as an amount: with its currency, or as part of the order's ("50 of it", "退50").
_AN_AMOUNT = re.compile(
    r"[$£€¥￥]\s?(\d[\d,]*(?:\.\d+)?)|(\d[\d,]*(?:\.\d+)?)(?:-?ish)?\s*(?:块|元|蚊|刀|美元|美金|人民币|(?i:bucks|dollars?|quid|"
    r"pounds?|euros?|usd|rmb|yuan|of\s+it|of\s+that|of\s+the\s+(?:money|amount|total|price)|back)\b)|"
    r"退\s*(\d{1,3}(?:\.\d+)?)(?![\d-])"  # not "退0902", an order's end
)


_PART_WORDS = re.compile(
    # "三分之二", Cantonese "三分二"; "扣返一盒", "扣掉运费": something taken off the whole
    r"一半|部分|[二三四五六七八九十]分之?[一二三四五六七八九](?!十|百|钟|秒|分|点)|扣(?:返|掉|除|减|去)?(?:[一二两三四五六七八九十\d]|运费)|减(?:去|掉|除)?\s*[$¥￥]?\s*(?:[一二两三四五六七八九十\d]|运费)|(?i:\b(?:minus|less)\s+(?:the\s+)?[$£€¥]?\s*(?:\d|shipping))|(?i:\b(?:a|one|two)[\s-]+thirds?\b|\b(?:a|one|two|three)[\s-]+quarters?\b|"
    r"\bhalf\b|\bpartial|\bpart\s+of\b|\bsome\s+of\s+(?:the\s+)?money\b)|"
    # the shipping alone: "淨係退返運費", "只退运费", "refund just the shipping", "shipping costs only"
    r"(?:只|就|净系|净係|仅|只是)[^，。,.!！?？]{0,4}运费|退(?:返|回|还)?运费|"
    r"(?i:\b(?:just|only)\s+(?:the\s+|for\s+the\s+)?(?:shipping|postage|delivery\s+(?:fee|charge|cost))|"
    r"\b(?:shipping|postage|delivery)\s+(?:fees?|costs?|charges?)?\s*only\b|\brefund\s+(?:me\s+)?(?:the\s+)?"
    r"(?:shipping|postage)\b)|"
    # A share of the price: "打八折" (eight tenths), "七五折", "对折", "九成" (nine tenths, never "八成是" probably),
    # "百分之五十", "80%", "80 percent" (never 100%)
    r"(?:[一二三四五六七八九]{1,2}|\d(?:\.\d)?|[一二三四五六七八九]点[一二三四五六七八九])\s?折(?!叠|腾|磨|返|扣|旧)|对折|半价|"
    r"(?<![\d.])[一二三四五六七八九\d]成(?![是功交本绩员为立都])|百分之(?!百|一百)[一二三四五六七八九十\d]|"
    r"(?<![\d.])(?:[1-9]\d?(?:\.\d+)?)\s?(?:%|％|(?i:percent\b|per\s+cent\b))"
)
# All but some: "everything except one", "all of them but the blue one", "除了一个都退", "其余的都退".
_ALL_BUT = re.compile(
    r"(?i:\b(?:everything|all(?:\s+of\s+(?:it|them|the\s+\w+))?|the\s+(?:whole|full|entire)\s+\w+)\s+"
    r"(?:but|(?:[\w-]+\s+){0,3}?(?:except|apart\s+from|other\s+than|minus|besides))\b)|"
    r"除了[^，。？?]{1,12}(?:都|全|其他|其余|别的)|(?:其他|其余|剩下)的?(?:都|全)退"
)


# The whole of an order's money, asked for in so many words ("refund the full $320", "全额退").
_FULL_ASKED = re.compile(
    # never a statement about the goods: "茶叶全部发霉" (all the leaves moldy), "everything else works", "all of
    # them were broken"
    r"(?i)\b(?:full|entire|whole|total)\b|\beverything\b(?!\s+(?:else|is|was|works|worked|seems))|"
    r"\ball\s+of\s+(?:it|them)\b(?!\s+(?:is|was|are|were|arrived|came))|\b(?:it|them)\s+all\b|"
    r"全额|全部(?![^，。,.!！]{0,3}?(?:坏|烂|破|漏|裂|碎|过期|发霉|变质|开胶|没|冇|有问题|正常|好好))|整单|全款|全退|都退"
)


# The whole said not to be asked ("not the whole thing", "rather than the full amount", "不要全额", "不是全部").
_NOT_THE_WHOLE = re.compile(
    r"(?i)(?:\bnot|n't|\brather\s+than|\binstead\s+of|\bexcept)\s+(?:\w+\s+){0,2}$|"
    r"(?:不|没|别|非|唔)(?:要|用|使|是|想|必|好)?$"
)


def _the_whole_said_not(text: str) -> bool:
    """Whether ``text`` says the whole is not wanted ("not the whole thing", "不要全部退", "唔使全部退"): part of
    it is, whatever amount follows in words ("退个两百就行", "two hundred dollars of it")."""
    return any(_NOT_THE_WHOLE.search(text[max(0, m.start() - 24) : m.start()]) for m in _FULL_ASKED.finditer(text))


def asks_for_the_whole(text: str) -> bool:
    """Whether ``text`` asks for the whole of an order's money in so many words (never "not the whole thing",
    nor "everything except one")."""
    return not _ALL_BUT.search(text) and any(
        not _NOT_THE_WHOLE.search(text[max(0, m.start() - 24) : m.start()]) for m in _FULL_ASKED.finditer(text)
    )


# An amount in Chinese numerals: "两百", "二百五", "一千二", or one numeral before its unit ("五块").
_ZH_NUMBER = re.compile(
    r"[零〇一二两三四五六七八九十百千万]*[百千万][零〇一二两三四五六七八九十百千万]*|"
    r"[一二两三四五六七八九十]{1,3}(?=\s*(?:块|元|蚊|刀))"  # "五十块"; never "十一月"
)
_ZH_DIGITS = dict(zip("零〇一二两三四五六七八九", (0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True))
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}


def _zh_number(word: str) -> int:
    """The value of Chinese numerals ("两百" 200, "一千二" 1200: a digit after 百 or 千 counts the next unit down)."""
    total = section = digit = 0
    for character in word:
        if character in _ZH_DIGITS:
            digit = _ZH_DIGITS[character]
        elif (unit := _ZH_UNITS[character]) == 10000:
            total, section, digit = (total + section + digit) * unit, 0, 0
        else:
            section, digit = section + (digit or 1) * unit, 0
    if digit and len(word) > 1 and _ZH_UNITS.get(word[-2], 0) >= 100:
        digit *= _ZH_UNITS[word[-2]] // 10
    return total + section + digit


# The financial numerals ("壹仟贰佰元") as the common ones.
_FINANCIAL = str.maketrans("壹贰貳叁參肆伍陆陸柒捌玖拾佰仟萬", "一二二三三四五六六七八九十百千万")
# Where Chinese numerals after 退 are an amount with its unit left out: "退一千二啦", "退两百就好".
_REFUND_BEFORE = re.compile(r"退(?:回|返|款|给我|我)?[\u4e00-\u9fff]{0,6}$")  # "退一千二", "退耳机二百九"
_UNIT_LEFT_OUT = re.compile(r"\s*(?:啦|吧|就|咯|喇|得|$|[，,。.!！~])")


def _as_digits(numerals: re.Match[str]) -> str:
    """Chinese numerals in digits, with the unit an amount after 退 leaves out ("退一千二啦" → "退1200块啦"), which
    no order's end ("退0941") is."""
    value = str(_zh_number(numerals.group()))
    text, start, end = numerals.string, numerals.start(), numerals.end()
    after_refund = _REFUND_BEFORE.search(text[max(0, start - 10) : start]) and _UNIT_LEFT_OUT.match(text, end)
    return f"{value}块" if after_refund else value


_ONES_EN = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
)
_TENS_EN = "twenty thirty forty fifty sixty seventy eighty ninety"
_EN_UNITS = {word: value for value, word in enumerate(_ONES_EN.split())} | {
    word: 10 * tens for tens, word in enumerate(_TENS_EN.split(), 2)
}
# An amount in English words: "two hundred", "eighty", "one hundred and twenty-five", "a hundred".
_EN_NUMBER = re.compile(
    rf"(?i)\b(?:(?:a|{'|'.join(_EN_UNITS)})(?:[\s-]+(?:and\s+)?(?:{'|'.join(_EN_UNITS)}|hundred|thousand))*|"
    r"hundred|thousand)\b(?=(?:-?ish)?[\s-]+(?:bucks|dollars?|quid|pounds?|euros?|usd|of\s+it|back)\b)"
)


def _en_number(words: str) -> int:
    """The value of a number in English words ("two hundred and fifty" 250, "eighty" 80, "a thousand" 1000)."""
    total = current = 0
    for word in re.findall(r"[a-z]+", words.lower()):
        if word in ("hundred", "thousand"):
            current = (current or 1) * (100 if word == "hundred" else 1000)
            if word == "thousand":
                total, current = total + current, 0
        elif word != "and":
            current += _EN_UNITS.get(word, 1 if word == "a" else 0)
    return total + current


def asks_for_part(text: str, total: object) -> bool:
    """Whether ``text`` asks for part of an order's money ("refund 50 of it first", "只退一半", "$20 back"), not its
    ``total``: a refund of the whole is then never proposed on it."""
    if _PART_WORDS.search(text) or _ALL_BUT.search(text) or _the_whole_said_not(text):
        return True
    try:
        whole = float(str(total).replace(",", ""))
    except ValueError:
        return False
    text = _ZH_NUMBER.sub(_as_digits, text.translate(_FINANCIAL))  # "只退两百块就行": 200
    text = _EN_NUMBER.sub(lambda m: str(_en_number(m.group())), text)  # "two hundred dollars is fine": 200
    for m in _AN_AMOUNT.finditer(text):
        if _AN_ORDER_BY_ITS_TOTAL.search(text[max(0, m.start() - 12) : m.end() + 24]):
            continue
        try:
            asked = float(next(g for g in m.groups() if g).replace(",", ""))
        except ValueError:
            continue
        if 0 < asked < whole:  # more than was paid is another request ("make it 500 bucks"), refused as such
            return True
    return False


# How many of an order's items a message names ("one of the three bottles", "只退一个保温杯", "其中两瓶").
_COUNT_WORDS = {"one": 1, "a single": 1, "a couple": 2, "couple": 2, "two": 2, "three": 3, "four": 4, "five": 5}
_COUNT_WORDS |= {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5}
_COUNT = r"(\d|one|two|three|four|five|a\s+single|a\s+couple|couple|一|两|二|三|四|五)"
_SOME_OF_THEM = re.compile(
    rf"(?i)\b{_COUNT}\s+of\s+(?:the|my|those|these|them|its)\b(?!\s+(?:orders?|ones|purchases|parcels|packages)\b)|"
    rf"(?:只退|只要退|就退)(?:的)?{_COUNT}"
)
_MEASURE_ZH = r"\s*(?:个|件|瓶|樽|只|隻|双|對|对|条|盏|台|部|套|支|把|张|杯|副|盒|包|罐|袋|份|本|箱|片)(?!订单|单)"


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _COUNT_WORDS.get(re.sub(r"\s+", " ", word.lower()), 0)


# A replacement or an exchange asked ("I'd like a replacement pole rather than money", "我想换货，不要退钱", "just send
# me a new one"): no refund is wanted, unless money is asked beside it ("replace it or refund me").
_EXCHANGE_ASKED = re.compile(
    r"(?i:\b(?:replacement|replace\s+(?:it|them|the|my)|exchange|swap\s+(?:it|them|the)|resend|re-send|"
    r"send\s+(?:me\s+)?(?:a\s+|an\s+)?(?:new|another|replacement)\b))|换货|换一个|换个|换新|补发|重发|再发一个|寄一个新的|寄个新的"
)
_NO_MONEY = re.compile(
    r"(?i:\b(?:rather\s+than|instead\s+of|not)\s+(?:the\s+|a\s+|my\s+)?(?:money|refund|cash)\b|\bno\s+refund\b)|"
    r"(?:不要|不用|不想|唔要|唔使)退(?:钱|款)?|不退(?:钱|款)"
)
_MONEY_ASKED = re.compile(r"(?i:\brefund|\bmoney\s+back\b|\breimburs)|退款|退钱|退货|全额")


def asks_for_an_exchange(text: str) -> bool:
    """Whether ``text`` asks for a replacement or an exchange instead of money: a colleague's to arrange, and no
    refund is proposed on it."""
    return bool(_EXCHANGE_ASKED.search(text)) and (bool(_NO_MONEY.search(text)) or not _MONEY_ASKED.search(text))


def asks_for_some_items(text: str, items: list[tuple[str, int]], bought: Sequence[str] = ()) -> bool:
    """Whether ``text`` asks a refund of fewer of the order's ``items`` (name, quantity) than it holds ("one of
    the three water bottles", "只退一个保温杯" of two), or of a piece of one: part of its money, never the whole.
    ``bought``: the names of everything else the customer bought, never a piece of this order's."""
    named = [m.group(1) or m.group(2) for m in _SOME_OF_THEM.finditer(text)]
    for name, _ in items:  # "refund one water bottle", "退一个保温杯": a count before the thing's own word
        noun = "|".join(re.escape(w) for w in re.findall(r"[a-z]{3,}", name.lower()) or [name[-2:]])
        named += re.findall(rf"(?i)\b{_COUNT}\s+(?:[a-z-]+\s+){{0,2}}?(?:{noun})s?\b", text)
        named += re.findall(rf"{_COUNT}{_MEASURE_ZH}[\u4e00-\u9fff]{{0,4}}?(?:{noun})", text)
        named += re.findall(rf"退(?:其中|咗|返)?(?:的)?{_COUNT}{_MEASURE_ZH}", text)  # "保温杯…退一个", "退其中两瓶"
    named += _COUNT_REFUNDED.findall(text)  # "另外一个退钱吧"
    named += [next(g for g in m.groups() if g) for m in _SOME_FAULTY.finditer(text)]  # "有一个坏了", "one leaks"
    named += [next(g for g in m.groups() if g) for m in _COUNT_KEPT.finditer(text)]  # "两个我留一个", "keep one"
    held = sum(quantity for _, quantity in items)
    if held > 1 and _ONE_POINTED_AT.search(text):  # "退坏的那个", "退嗰盒", "the broken one": one of several
        return True
    if _ONE_OF_A_PAIR.search(text):  # "跑步鞋有一只开胶了，就退那一只的钱": one shoe of the pair
        return True
    return any(0 < _count(word) < held for word in named) or _a_component_asked(text, items, bought)


_DEFECT_ZH = r"(?:坏|破|烂|漏|裂|碎|过期|开胶|变质|发霉|瘪|凹|不亮|不转|不能用|用不了|有问题|有毛病|损坏)"
_DEFECT_EN = (
    r"(?:broken|broke|cracked|damaged|dented|leaky|leaking|leaks|faulty|defective|dead|bad|torn|ripped|expired|"
    r"stale|missing|smashed|shattered)"
)
# Some of the items said to be faulty, by a count ("保温杯有一个坏了", "一盒烂咗", "one of them arrived cracked"): the
# refund asked is of those, not of the whole order.
_SOME_FAULTY = re.compile(
    rf"{_COUNT}{_MEASURE_ZH}[^，。,.;；!！？?]{{0,6}}?{_DEFECT_ZH}|"
    rf"(?i:\b{_COUNT}\s+(?:of\s+(?:them|those|these|the\s+\w+)\s+)?(?:[a-z]+\s+){{0,2}}?(?:is|was|are|were|came|"
    rf"arrived|got)?\s*{_DEFECT_EN}\b)"
)
# One of several items pointed at ("退坏的那个", "退嗰盒", "退那一只的钱", "refund the broken one"): its part only.
_ONE_POINTED_AT = re.compile(
    rf"(?:{_DEFECT_ZH}(?:了|咗)?的)?(?:那|嗰|这|呢)一?(?:盒|只|隻|瓶|樽|杯|包|罐|袋|件|双|支|把|张|盏|台|部|套|本|片|条)"
    rf"(?!订单|单|都|全)|{_DEFECT_ZH}(?:了|咗)?的(?:那|嗰|这|呢)?一?个|"
    rf"(?i:\b(?:the|that|this)\s+{_DEFECT_EN}\s+(?:one|unit|piece|box|bottle|cup|lamp)\b)"
)
# One of a pair: "一只"/"那只" (one shoe, one earbud), left or right, "one shoe", "the left earbud".
_ONE_OF_A_PAIR = re.compile(
    r"(?:一|那|嗰|这|呢)一?只(?!订单|单)|(?:左|右)(?:边|耳|脚|只)|"
    r"(?i:\b(?:one|the\s+(?:left|right)|a\s+single)\s+(?:shoe|sneaker|boot|earbud|earphone|glove|sock)\b|"
    r"\b(?:left|right)\s+(?:one|shoe|earbud|side)\b)"
)
# A part of an item asked for on its own: "refund just the lid", "only for the carrying case", "只退充电盒", "淨係退個
# 盖子": no item of the order is named so, so it is a part of one.
_ONLY_ONE_PART = re.compile(
    r"(?i:\b(?:just|only|(?:cost|price|value)\s+of|(?:refund|reimburse|compensate)(?:\s+me)?(?:\s+just|\s+only)?(?:\s+for)?|"
    r"money\s+back(?:\s+just|\s+only)?\s+for|missing|without)\s+(?:for\s+)?(?:the|a|an|my|its|one)\s+"
    r"(?:missing\s+|broken\s+|cracked\s+|damaged\s+|lost\s+)?([a-z][a-z-]+(?:\s+[a-z][a-z-]+)?))"
    r"|(?:只|就|净系|净係|仅|只是)(?:退|赔)(?:返|回)?(?:个|嗰个|那个|一个)?([\u4e00-\u9fff]{1,4}?)"
    r"(?:的钱|的费用|就好|就行|就得|就可以|吧|俾我|给我|$|[，。,.!！?？])"
    r"|退(?:返|回)?(?:个|嗰个|那个|一个)?([\u4e00-\u9fff]{1,4}?)(?:的钱|的费用|嘅钱)"
    r"|(?:少了?|缺了?|冇咗|没有了?)(?:一个|一只|一根|一条|一片|一颗|一粒|个|只|根|条)?([\u4e00-\u9fff]{1,4}?)(?=[，。,.!！?？]|$)"
    r"|([\u4e00-\u9fff]{1,4}?)(?:的钱|嘅钱)(?:退|赔)"
)
_NOT_A_PART_EN = frozenset(
    re.findall(
        r"\S+",
        "one ones order orders it them money refund amount part half item items thing things stuff whole full total "
        "rest lot price cost purchase purchases product products package packages parcel parcels shipment delivery "
        "first second last latest please pls thanks now once this that these those same other cheaper cheapest "
        "expensive one's of for to in on at and with from all both most more least dearest priciest pricier "
        "cheap older oldest newest recent previous next big small entire complete everything anything something "
        "i mentioned said asked want wanted me my your it's its instead rather too also as well the a an around "
        "about approx approximately roughly costing priced worth which who where when you we they is was are were "
        "be been paid bought ordered that's there here if or and but so because since ord order",
    )
)
_NOT_A_PART_ZH = re.compile(r"[款钱掉了货单吧回给我它这那个下全部额都一半分]")


def _a_component_asked(text: str, items: list[tuple[str, int]], bought: Sequence[str] = ()) -> bool:
    """Whether ``text`` asks the refund of something on its own that no item of the order is named as ("just
    the lid" of a coffee grinder): part of an item, never the whole order. A thing of another of the customer's
    orders is that order's ("refund the desk lamp and the coffee grinder")."""
    items = [*items, *((name, 1) for name in bought)]
    names = " ".join(name.lower() for name, _ in items)
    found, at = [], 0
    while m := _ONLY_ONE_PART.search(text, at):  # overlapping: "refund the cost of the lid" holds "cost of the lid"
        found.append(m)
        at = m.start() + 1
    for m in found:
        english, chinese = m.group(1), m.group(2) or m.group(3) or m.group(4) or m.group(5)
        words = list(
            itertools.takewhile(
                lambda w: w not in _NOT_A_PART_EN, (w.strip("-") for w in (english or "").lower().split())
            )
        )
        if len(words) > 1 and words[-1].endswith(("ed", "ing")):
            words.pop()  # "the tent approved": the tent
        if words and not _an_item_word(words[-1], names):  # "tent pole" of a tent: the pole
            return True
        # "只退耳机": the item itself
        if chinese and not _NOT_A_PART_ZH.search(chinese) and not any(c in n for c, n in _both_ways(chinese, items)):
            return True
    return False


def _an_item_word(word: str, names: str) -> bool:
    """Whether ``word`` is one of the items' names, or one mistyped ("backpak" of "Hiking backpack")."""
    singular = word.rstrip("s")
    return singular in names or any(
        difflib.SequenceMatcher(None, singular, name).ratio() >= 0.85 for name in names.split()
    )


def _both_ways(said: str, items: list[tuple[str, int]]) -> list[tuple[str, str]]:
    """``said`` against each item's name, and each name's last two characters against ``said`` ("耳机" is in "无线
    蓝牙耳机"; "蓝牙耳机" holds "耳机")."""
    return [pair for name, _ in items for pair in ((said, name), (name[-2:], said))]


# A count refunded, said before the refund ("另外一个退钱吧", "其中两瓶退掉"), or kept ("我留一个", "一个我自己留着",
# "keep one", "keeping two of them"): either way, fewer than the order holds are refunded.
_COUNT_REFUNDED = re.compile(rf"{_COUNT}{_MEASURE_ZH}(?:就|的话)?(?:帮我)?退")
_COUNT_KEPT = re.compile(
    rf"(?:留|留下|留着|保留|自己用|自己要)(?:其中)?{_COUNT}{_MEASURE_ZH}|"
    rf"{_COUNT}{_MEASURE_ZH}(?:我|就)?(?:自己)?(?:留|保留|要留|要了)|"
    rf"(?i:\bkeep(?:ing)?\s+{_COUNT}(?:\s+of\s+(?:them|those|these|the\s+\w+))?\b)"
)


# An amount that picks an order by its total, asking for none: "the ~$130 one", "the one around $130", "129块那单".
_AN_ORDER_BY_ITS_TOTAL = re.compile(
    # "the one around $130", "the ~$130 one", "129块那单": an order named by what it cost; never "about 100 of it",
    # "大概壹佰蚊左右" (about ¥100) in a refund asked: an amount
    r"(?i)\b(?:one|order|purchase|thing)\s+(?:(?:that\s+)?(?:cost|was|for|of|at)\s+)?"
    r"(?:~|(?:around|about|roughly|approximately|approx|nearly|almost|like)\s+)[$£€¥￥]?\s?\d|"
    r"~\s?[$£€¥￥]?\s?\d[\d,.]*\s*(?:k\b)?\s*(?:one|order|purchase|thing)\b|"
    r"\d[\d,.]*\s*(?:块|元|bucks|dollars?)?\s*(?:one|order|purchase|thing)\b|"
    r"\d\s*(?:块|元)?(?:多|左右)?(?:的那|那)(?:单|个|笔)|"
    # money in another form than a refund ("a $100 voucher"): no part of the order's asked
    r"\d\s*(?:voucher|credit|coupon|gift\s*card)|\d[\d,.]*\s*(?:的)?(?:优惠券|代金券|补偿)|(?:补偿|赔偿|赔)[我你]?\s*[$¥￥]?\d|"
    r"(?i:\d[^.,，。]{0,20}\b(?:for\s+the\s+(?:hassle|trouble|wait|inconvenience)|on\s+top|extra)\b)"
)


# A currency asked for the money, with no amount ("pay it out in euros", "退成港币"): another than the order's is
# another request, as an amount in it is.
_PAID_IN = {
    "CNY": re.compile(
        r"(?i:\b(?:in|into|as)\s+(?:chinese\s+)?(?:yuan|rmb|renminbi|cny)\b)|(?:用|以|换成|退成|转成|按|退)人民币"
    ),
    "USD": re.compile(
        r"(?i:\b(?:in|into|as)\s+(?:us\s+|american\s+)?(?:dollars|usd)\b)|(?:用|以|换成|退成|转成|按|退)(?:美元|美金)"
    ),
    "EUR": re.compile(r"(?i:\b(?:in|into|as)\s+(?:euros?|eur)\b)|(?:用|以|换成|退成|转成|按|退)欧元"),
    "GBP": re.compile(
        r"(?i:\b(?:in|into|as)\s+(?:british\s+)?(?:pounds(?:\s+sterling)?|sterling|gbp)\b)|(?:用|以|换成|退成|转成|按|退)英镑"
    ),
    "HKD": re.compile(
        r"(?i:\b(?:in|into|as)\s+(?:hong\s+kong\s+dollars|hkd)\b)|(?:用|以|换成|退成|转成|按|退)(?:港币|港元|港纸)"
    ),
}


def currencies_named(text: str) -> set[str]:
    """The currencies of the amounts ``text`` names, and those it asks the money in (ISO codes)."""
    return {code for code, pattern in _MONEY_IN.items() if pattern.search(text) or _PAID_IN[code].search(text)}


_MORE_MONEY = re.compile(
    r"补偿|赔偿|赔我|多退|加(?:上|点)?钱|辛苦费|精神损失|(?i:\bcompensat|\bon\s+top\b|\bextra\b|\bfor\s+the\s+"
    r"(?:hassle|trouble|inconvenience|wait)|\bmake\s+it\s+[$£€¥]?\d|\bround\s+(?:it\s+)?up\b)"
)


def _asks_other_money(rest: str, proposal: Mapping[str, Any]) -> bool:
    """Whether words after a yes to a refund ask for money the refund proposed is not."""
    proposed = _numbers(" ".join(str(v) for k, v in proposal.items() if k not in CUSTOMERS_WORDS))
    other_amount = bool(_MONEY_NAMED.search(rest)) and not _numbers(rest) <= proposed
    return other_amount or bool(_MORE_MONEY.search(rest))


_PHONE_NUMBER = re.compile(r"\+?\d[\d\s\-()]{5,}\d")
# What makes the yes before it a yes to something else: a condition on the change or another way of making it
# ("yes, and if staff say no … a voucher", "yes, but to my sister's Visa rather than my card", "确认，要是…就…").
_ON_CONDITION = re.compile(
    r"如果|要是|假如|除非|而不是|否则|不然|只要|前提是|"
    r"(?i:\bif\b|\bunless\b|\brather\s+than\b|\binstead\b|\bas\s+long\s+as\b|\bprovided\b|\bonly\s+if\b|"
    r"\botherwise\b|\bon\s+condition\b)"
)
# A change asked on a condition the agent cannot hold it to ("turn off notifications only if my headphones have
# shipped", "除非你们再发广告，否则别关"): made when confirmed or not at all, so never proposed on it. Politeness
# ("if you can", "如果可以的话") sets no condition.
_A_CONDITION = re.compile(
    r"(?i:\bonly\s+(?:if|when|once|after)\b|\bunless\b|\bas\s+long\s+as\b|\bso\s+long\s+as\b|"
    r"\b(?:assuming|supposing|presuming)\b|\bon\s+the\s+condition\b|\bprovided\s+(?:that\b)?|\bon\s+condition\b|"
    # "if my backpack hasn't arrived yet, refund it": any "if" but a polite one ("if you can", "if possible")
    r"(?<!\beven\s)(?<!\bas\s)(?<!\bwhat\s)\bif\b(?!\s+(?:(?:you|u)\s+(?:can|could|don'?t\s+mind|wouldn'?t\s+mind|would|will|"
    r"may|please|want|like|have\s+(?:a\s+)?(?:time|chance|a\s+moment))|possible|so|any|at\s+all|needed|necessary|"
    r"that'?s\s+(?:ok|okay|possible|alright|all\s+right|fine|allowed)|that\s+(?:works|helps)|"
    r"it'?s\s+(?:ok|okay|possible|not\s+too\s+much|no\s+trouble|alright|fine|allowed))\b)|"
    r"\b(?:when(?:ever)?|once|after|as\s+soon\s+as)\s+(?:it|they|the\s+\w+|my\s+\w+|\w+)\s+(?:ships|arrives|arrive|"
    r"comes|come|gets?\s+(?:there|here|delivered|shipped)|(?:is|are|has|have)\s+(?:been\s+)?(?:shipped|arrived|delivered))\b)|"
    r"(?i:\b(?:wait|hold\s+(?:it|off|on))\s+(?:until|till|til|for)\b)|"
    r"除非|只有[^，。？?]{1,20}才|等[^，。？?]{1,30}(?:的话|嘅话|嘅話)?[，,]?\s*(?:就|才|再)|等[^，。？?]{1,30}(?:先|以后|之后|再说)|"
    # "只要0816还没发货，就…", "…，如果0901仲未送到嘅話": any word of a condition, but a polite one ("如果可以的话")
    r"前提是|条件是|(?:如果|要是|假如|假设|假使|万一|萬一|若是|倘若|只要(?![退改换关开把帮给一两二三])|一旦|但凡)"
    r"(?!(?:你们?|您)?(?:可以|方便|能|行|需要|愿意|不介意|不麻烦)(?:的话|嘅话|嘅話|的話|(?=[，,。\s]|$)))|"
    r"(?<!可以)(?<!方便)(?<!能)(?<!行)(?<!需要)(?<!得)(?<!可能)(?:的话|嘅话|嘅話|的話)"
)


# Words asking for a change, not only stating a value ("change it to …", "把地址改成…", "mute them"): what a change
# the customer said no to earlier needs before it is proposed again ("I'm still living at X" asks nothing).
_ASKS_TO_CHANGE = re.compile(
    r"(?i:\b(?:change|update|switch|set|make|put|use|mute|unmute|turn|go\s+ahead|proceed|apply|save|do\s+it|please|"
    r"pls|can\s+you|could\s+you|would\s+you|i\s+want|i'?d\s+like)\b)|"
    r"改|换|換|设|設|用|关|關|开|開|熄|静音|靜音|确认|確認|办|辦|帮我|幫我|请|請|麻烦|麻煩"
)


def asks_to_change(text: str) -> bool:
    """Whether ``text`` asks for a change in words of a request, rather than only saying a value."""
    return bool(_ASKS_TO_CHANGE.search(text))


def asks_on_a_condition(text: str) -> bool:
    """Whether ``text`` asks for a change on a condition ("only if …", "unless …", "除非…", "如果…就…")."""
    return bool(_A_CONDITION.search(text))


def says_yes_on_a_condition(text: str) -> bool:
    """A yes to the waiting change with a condition on it ("Yes, please — but only once my backpack arrives",
    "好，但係等0901到咗先"): no yes, and the customer is told why. Not a question of what a yes would do
    ("确认的话会不会影响我已经下的订单？")."""
    asks = re.search(r"[?？]\s*$|会不会|吗|(?i:\b(?:will|would|does|do)\b)", text)
    return bool(_YES.match(text)) and asks_on_a_condition(text) and not asks


# Words that ask the change itself be made: "…的话就退", "only if it hasn't shipped, then do it".
_DO_IT = re.compile(
    r"就(?:退|改|关|开|换|办|静音)|(?i:\b(?:do\s+it|go\s+ahead|refund\s+it|change\s+it|mute\s+(?:it|them)|proceed|"
    r"yes|yeah|yep|ok(?:ay)?|sure)\b)"
)


def answers_on_a_condition(text: str, tool: str) -> bool:
    """An answer to the waiting change that puts a condition on it, with or without a yes ("谢谢，前提是还没发货的话
    就退", "only if it hasn't shipped, go ahead"): the change cannot wait for it, and the customer is told so. Not a
    question of what the change would do. A yes with a condition is one ("Yes, but only once it arrives")."""
    if says_yes_on_a_condition(text):
        return True
    asks = re.search(r"[?？]\s*$|会不会|吗|(?i:\b(?:will|would|does|do)\s+(?:it|i|you|that)\b)", text)
    return asks_on_a_condition(text) and not asks and bool(_DO_IT.search(text) or names_the_kind(text, tool))


# Where refunded money would go: a refund goes back the way it was paid, never elsewhere on a yes.
_PAID_ELSEWHERE = re.compile(
    r"卡|账户|账号|支付宝|微信|余额|(?i:\bcard\b|\bvisa\b|\bmastercard\b|\bamex\b|\baccount\b|\bpaypal\b|\bwallet\b|"
    r"\bbank\b|\bstore\s+credit\b|\bvoucher\b|\bgift\s+card\b)"
)


# A yes that ends its sentence, then a question ("确认。现在通知和联系方式分别是啥？"): the question may name the
# change's kind, it asks how things stand; anything else after a bare full stop is read as before.
_YES_THEN_A_QUESTION = re.compile(
    r"^(?P<yes>[^.。!！?？]{1,24})[.。!！]+\s*(?P<rest>.*(?:[?？]|吗|呢|啥|什么|多少|几).*)$", re.S
)
_BUT = re.compile(r"(?i)^\s*(?:but|however|though|except|instead|不过|但是|但|可是|只是|而是)")


def confirmation_then_more(text: str, proposal: Mapping[str, Any]) -> tuple[str, str] | None:
    """A yes to the waiting change followed by another request: ``(the yes, the rest)``, else ``None``. The
    change is made, and the rest is answered as the customer's message; unless the rest asks for part of the
    money the refund proposed moves, which is no yes to it."""
    if (m := _YES_THEN_A_QUESTION.match(text.strip())) and not _BUT.match(m.group("rest")):
        yes, rest = m.group("yes").strip(), m.group("rest").strip()
        money = "order_number" in proposal and "reason" in proposal and _asks_other_money(rest, proposal)
        if is_confirmation(yes, proposal) and not _ON_CONDITION.search(rest) and not _PAID_ELSEWHERE.search(rest):
            return None if money else (yes, rest)
    for m in _AND_THEN.finditer(text):
        head, rest = text[: m.start()].strip(" ,，.。"), text[m.end() :].strip()
        if head and re.search(r"[A-Za-z\u4e00-\u9fff]", rest) and is_confirmation(head, proposal):
            if "order_number" in proposal and "reason" in proposal and _PART_OF_THE_MONEY.search(rest):
                return None
            if "order_number" in proposal and "reason" in proposal and _asks_other_money(rest, proposal):
                return None  # "yes, and make it 500 bucks": a yes to a refund that is not the one proposed
            if proposal.get("channel") in ("sms", "phone") and _PHONE_NUMBER.search(rest):
                return None  # "yes and use +44 7700 900555 as my number": a yes to texts at another number
            if _ON_CONDITION.search(rest):
                return None  # "yes, and if staff say no, a voucher instead": a yes on a condition is none
            if "order_number" in proposal and "reason" in proposal and _PAID_ELSEWHERE.search(rest):
                return None  # "yes, and put the money on my sister's Visa": the refund goes back the way it came
            return head, rest
    return None


def _names_another_change(text: str, proposal: Mapping[str, Any]) -> bool:
    if any(re.search(words, text) and kind not in proposal for kind, words in _KINDS.items()):
        return True
    if currencies_named(text) - currencies_named(str(proposal.get("summary") or "")):
        return True  # "yes, refund the ¥89" to a refund of $89.00: another sum of money
    said = _numbers(" ".join(str(v) for k, v in proposal.items() if k not in CUSTOMERS_WORDS))
    if not _numbers(text) <= said:
        return True
    channel = proposal.get("channel")
    if channel and any(re.search(p, text) for c, p in _CHANNEL_WORDS.items() if c != channel):
        return True
    setting = proposal.get("preference")
    return bool(setting and any(re.search(p, text) for s, p in _NOTIFICATION.items() if s != setting))


def _numbers(text: str) -> set[str]:
    """The numbers in ``text`` as compared: "1,299.00" is "1299", "0870" is "870"."""
    out = set()
    for n in _NUMBER.findall(text):
        n = n.replace(",", "").rstrip(".")
        n = n.rstrip("0").rstrip(".") if "." in n else n
        out.add(n.lstrip("0") or "0")
    return out


# Where a no may end and a question of the customer's own begin: a sentence's end, or a comma after more than a
# bare no ("不用了，0817到哪了？"; "no, why only $50?" disputes the change, it does not drop it).
_AFTER_A_NO = re.compile(r"[.。!！;；\n]+\s*|[,，]\s*|\s*[\u2014\u2013]+\s*|\s+-+\s+")
_BARE_NO = re.compile(r"(?i)^\s*(?:no+|nope|nah|不|不是|否)\s*$")
_A_QUESTION = re.compile(
    r"[?？]|吗|呢|帮我|麻烦你|请你|到哪|在哪|哪里|什么|多少|几天|怎么|啥|(?i:\bplease\b|\bcan\s+you\b|\bcould\s+you\b|"
    r"\b(?:what'?s?|whats|where'?s?|wheres|when|how|which)\b)|(?i:^\s*(?:(?:and|also|then|so|but)\s+)?(?:what|where|when|how|which|who|why|is|are|can|could|do|does|"
    r"did|has|have|will|list|show|tell|check|track|give|find|look)\b)|^\s*(?:另外|还有|然后|那|再)?\s*(?:帮我|查|看|告诉|列)"
)
# A question that asks for the change another way is a counter-request, not a question after a no.
_ANOTHER_WAY = re.compile(
    r"改|换|设(?!置(?:的|是)?(?:什么|啥))|用|而是|(?i:\b(?:change|switch|update|use|make|instead|rather|move|send)\b|"
    r"\bset\b(?!\s+(?:to|as)\s*(?:now|currently|right\s+now)?\s*\?))"
)


# After a no, a yes to the change asked for after it: "…but yes to the sms thing", "不过短信那个要".
_YES_TO_THE_NEXT = re.compile(
    r"(?i)^\s*(?:but|and|though)?\s*(?:yes|yeah|ok|sure)\b|^\s*(?:不过|但是|但)[^，。]{0,8}(?:要|可以|行)"
)


def declined_then_asked(text: str, tool: str = "") -> tuple[str, str] | None:
    """A no to the waiting change (of ``tool``), then a question or a request of its own ("no, leave it. What's the
    delivery address on 0932?", "不用了，0817到哪了？", "no. and list all refunds", "no, keep them on — just send
    them by SMS": another kind of change): ``(the no, the rest)``, else ``None``. The change is dropped and the
    rest answered."""
    found = None  # the longest no ("先别，算了不静音了。我还有几个订单？"), so none of it is read as a request
    for m in _AFTER_A_NO.finditer(text):
        head, rest = text[: m.start()], text[m.end() :].strip()
        if m.group().strip() in {",", "，"} and _BARE_NO.match(head):
            continue
        if is_cancellation(head) and _YES_TO_THE_NEXT.match(rest):
            return head, ""  # "no dont mute. but yes to the sms thing": the next change is proposed for its yes
        another_kind = any(names_the_kind(rest, kind) for kind in _KIND_WORDS if kind != tool) if tool else False
        if is_cancellation(head) and (
            (_A_QUESTION.search(rest) and not _ANOTHER_WAY.search(rest))
            or (another_kind and not names_the_kind(rest, tool))
        ):
            found = head, rest
    return found


# A change said not to be made: a no before a verb of change ("通知先别关", "别改了", "dont mute the notifications").
_NEGATED_CHANGE = re.compile(
    r"(?:别|不要|先别|先不|不用|不必|暂时不|暂时别|还是别|还是不)(?:再)?(?:帮我|给我)?(?:把)?[^，。,.;；!！?？]{0,6}?"
    r"(?:关|静音|改|换|动|退|申请|开)"
    r"|(?i:\b(?:don'?t|dont|do\s+not|no\s+need\s+to|never\s+mind|stop)\b[^.,;!?]{0,25}?"
    r"\b(?:mute|silence|turn|switch|change|update|refund|move)\b)"  # not "send": "don't send me alerts" is a mute
)
_CLAUSE = re.compile(r"[，,。.;；!！?？]+|(?i:\s+but\s+)|不过|但是")
# "the rest need no change" ("确认，别的不用改了", "yes, don't change anything else"): no no to the waiting change.
_ANYTHING_ELSE = re.compile(r"别的|其他|其它|另外|其余|(?i:\belse\b|\bother\b|\bmore\b|\bthe\s+rest\b)")


# Before what a message keeps of several waiting changes ("just the water bottles", "只退跑步鞋", "淨係退耳机").
_ONLY = re.compile(r"(?i:\bjust\b|\bonly\b)|只|仅|[淨净][係系是]")
# What takes back a change in a clause naming it ("forget the backpack", "drop the tent", "键盘唔使退").
_TAKES_BACK = re.compile(
    r"(?i:\b(?:forget|drop|skip|scrap|cancel|remove|not|no|don'?t|dont|never\s*mind|without|leave\s+out)\b)"
    r"|算了|不用|不要|别|不退|唔使|唔要|唔好|取消|去掉|不必|免了"
)
# A clause of its own after a dash: "don't switch to SMS - keep it as it is".
_CLAUSE_OR_DASH = re.compile(rf"{_CLAUSE.pattern}|\s[-\u2013\u2014]+\s")


def _names_its_order(text: str, change: Mapping[str, Any], alone_of_its_kind: bool = False) -> bool:
    """Whether ``text`` names what a waiting change is about: its order (by number, or by a word of the item its
    summary names: "the backpack", "耳机"; by its kind too when no other change waiting is of that kind: "refund
    那个"), or the kind of a change of no order ("the channel")."""
    order = str(change.get("arguments", {}).get("order_number") or "")
    if not order or (alone_of_its_kind and names_the_kind(text, str(change.get("tool", "")))):
        return names_the_kind(text, str(change.get("tool", "")))
    item = re.search(rf"{re.escape(order)}\s*[（(]([^)）]+)[)）]", str(change.get("summary", "")))
    return names_order(text, order, item[1] if item else "")


def names_order(text: str, number: str, items: str) -> bool:
    """Whether ``text`` names the order ``number``: by its number or its end, or by a word of what it holds
    (``items``: English words of four letters or more, two Chinese characters in a row)."""
    if number[-4:] in text:
        return True
    said = {w.rstrip("s") for w in re.findall(r"[a-z]{4,}", text.lower())}
    words = {w.rstrip("s") for w in re.findall(r"[a-z]{4,}", items.lower())} - {"order", "item"}
    han = "".join(re.findall(r"[\u4e00-\u9fff]", items))
    return bool(words & said) or any(han[i : i + 2] in text for i in range(len(han) - 1))


# A change named by its place among those asked for together ("the first one", "第二个", "后面那个", "the last").
_PLACES = (
    (
        0,
        r"(?i:\bthe\s+(?:first|former)\b|\b1st\b)|第一(?:个|单|项|笔|件)|头一(?:个|单|项)|前一(?:个|单|项)|前面(?:那|这)(?:个|单|项)",
    ),
    (1, r"(?i:\bthe\s+second\b|\b2nd\b)|第二(?:个|单|项|笔|件)"),
    (2, r"(?i:\bthe\s+third\b|\b3rd\b)|第三(?:个|单|项|笔|件)"),
    (-1, r"(?i:\bthe\s+(?:last|latter)\b)|最后(?:一|那)(?:个|单|项|笔)|后一(?:个|单|项)|后面(?:那|这)(?:个|单|项)"),
)


def _named_by_place(clause: str, count: int) -> set[int]:
    """The changes of ``count`` asked for together that ``clause`` names by their place."""
    return {place % count for place, pattern in _PLACES if re.search(pattern, clause) and place < count}


def taken_back(text: str, changes: list[Mapping[str, Any]]) -> set[int]:
    """Of several changes waiting (the one proposed first, then those asked for after it; each with its ``tool``,
    ``arguments`` and ``summary``), the ones a message takes back by naming them apart: "forget the backpack,
    just the water bottles" the backpack's, "瑜伽垫不用退了，只退跑步鞋" every one but the running shoes', "第一个不要
    了，只退第二个" the first. Empty when it names none of them apart, or names only the proposed one as taken back:
    a no is then read as any no is."""
    if len(changes) < 2:
        return set()
    kept: set[int] = set()
    dropped: set[int] = set()
    only = False  # "淨係静音" with the mute made already: "only" a change none of these is, so none is wanted
    tools = [str(change.get("tool", "")) for change in changes]
    alone = [tools.count(tool) == 1 for tool in tools]  # "refund 那个 forget it": the one refund waiting
    for clause in _CLAUSE_OR_DASH.split(text):
        named = {i for i, change in enumerate(changes) if _names_its_order(clause, change, alone[i])}
        named |= _named_by_place(clause, len(changes))
        if _ONLY.search(clause) and (named or any(names_the_kind(clause, kind) for kind in _KIND_WORDS)):
            only, kept = True, kept | named
        elif named and len(named) < len(changes) and _TAKES_BACK.search(clause):
            dropped |= named
    if only:
        return set(range(len(changes))) - kept
    return dropped if dropped != {0} else set()  # a no to the proposed one alone is read as any no is


# A change's kind named, then said not to be made ("退款不用了", "退款唔使喇", "no refund needed", "don't need a
# refund", "forget the refund").
_KIND_NOT_WANTED = re.compile(
    r"(?:退款|退钱|退货|地址|通知|静音|联系方式)(?:就|也|先|都|可以)?(?:不用|不要|不必|算了|免了|唔使|唔要|唔好)"
    r"|(?i:\bno\s+(?:need\s+(?:for|of)\s+(?:a|the|any)\s+)?(?:refunds?|address\s+change|changes?)\b|"
    r"\b(?:refund|address\s+change|change)\s+(?:is\s+)?(?:not\s+needed|unnecessary)\b|"
    r"\b(?:don'?t|do\s+not)\s+(?:need|want)\s+(?:a|the|any)\s+(?:refund|address\s+change|change)\b|"
    r"\b(?:forget|skip|drop)\s+(?:about\s+)?the\s+(?:refund|address\s+change)\b)"
)
# What such a clause may hold besides: no thing, order or value of its own.
_NOTHING_NAMED = re.compile(
    r"(?i:\b(?:no|not|don'?t|dont|do|need|needed|want|a|the|any|about|for|of|is|it|that|this|i|me|my|please|pls|"
    r"thanks|thank|you|anymore|now|after|all|forget|skip|drop|unnecessary|just|then|ok|okay|actually|change|"
    r"update|switch|make|made|to|be)\b)"
    r"|不用|不要|不必|算了|免了|唔使|唔要|唔好|了|喇|啦|吧|呢|啊|呀|就|也|先|都|可以|那|这|个|我|的|还是|其实|"
    r"改|换|动|退|关|开|申请|办|弄|再|帮|给"
)


def _refusing_clauses(text: str, tool: str) -> list[str]:
    """The clauses of ``text`` that say not to make a change of ``tool``'s kind ("退款唔使喇", "never mind the tent
    refund"); never one about the rest ("不用改其他的") nor one saying only the whole is not wanted."""
    return [
        clause
        for clause in _CLAUSE.split(text)
        if names_the_kind(clause, tool)
        and not _ANYTHING_ELSE.search(clause)
        and not _the_whole_said_not(clause)  # "don't refund all of it": a part is asked, not no refund
        and (_NEGATED_CHANGE.search(clause) or _KIND_NOT_WANTED.search(clause))
    ]


def refuses_the_kind(text: str, tool: str) -> bool:
    """Whether ``text`` says, in some clause, not to make a change of ``tool``'s kind (``says_not_to_make`` tells
    whether of this change)."""
    return bool(_refusing_clauses(text, tool))


def says_not_to_make(text: str, tool: str, order: str = "", items: str = "") -> bool:
    """Whether a clause of ``text`` says not to make a change of ``tool``'s kind, naming nothing else ("退款唔使喇，
    只改地址就得", "no refund needed") or naming the change's own order (``order``, holding ``items``: "never mind
    the tent refund"): a change so refused, proposed in answer, is one the customer said no to. "don't refund the
    tent" says nothing of the backpack's refund asked beside it."""
    for clause in _refusing_clauses(text, tool):
        if order and names_order(clause, order, items):
            return True
        rest = _NOTHING_NAMED.sub(" ", re.sub(_KIND_WORDS[tool], " ", clause))
        if not re.search(r"[\u4e00-\u9fff]|[A-Za-z]{3,}|\d", rest):
            return True
    return False


def declines_the_kind(text: str, tool: str) -> tuple[str, str] | None:
    """A clause saying not to make a change of the waiting change's kind, anywhere in the message ("短信那个可以，
    通知先别关", "phone is fine but dont mute the notifications after all"), or not to make a change naming no kind
    at all ("算了，还是用邮件吧，不用改了", "never mind, don't change it"): ``(that clause, the rest)``, else
    ``None``. The change is dropped and the rest answered."""
    clauses = [c for c in _CLAUSE.split(text) if c.strip()]
    for clause in clauses:
        if not _NEGATED_CHANGE.search(clause) or _ANYTHING_ELSE.search(clause):
            continue
        if names_the_kind(clause, tool) or not any(names_the_kind(clause, kind) for kind in _KIND_WORDS):
            rest = "，".join(c.strip() for c in clauses if c is not clause)
            return clause.strip(), rest
    return None


# Saying to keep a setting as it is on record, while a change of it waits ("哦不对 还是开着吧 确认", "keep them on",
# "算了还是用邮件吧", "stick with email"): a no to that change, whatever yes it ends with.
_KEPT_SETTING = {
    (
        "update_notification_preference",
        "on",
    ): r"开着|保持开|(?i:\b(?:keep|leave)\s+(?:them|it|(?:my\s+)?notif\w*)\s+on\b|"
    r"\bstay\s+on\b)",
    (
        "update_notification_preference",
        "mute",
    ): r"关着|保持(?:静音|关闭)|(?i:\b(?:keep|leave)\s+(?:them|it|(?:my\s+)?notif\w*)\s+"
    r"(?:off|muted)\b|\bstay\s+(?:off|muted)\b)",
}
_KEEP_A_CHANNEL = (
    r"还是|继续|保持|照旧|依旧|仍然|就用|用回|(?i:\bkeep\b|\bstick\s+with\b|\bstay\s+with\b|\bstill\b|\bis\s+fine\b|"
    r"\buse\b|\bmeant?\b)"
)
# Words that set a channel aside: "instead of SMS", "not SMS", "不用短信".
_SET_ASIDE_BEFORE = r"\binstead\s+of\b|\brather\s+than\b|\bnot\b|\bover\b|不用|不要|别用|而不是|不是"


def keeps_it_as_it_is(text: str, tool: str, current: str | None, proposed: Any) -> bool:
    """Whether ``text`` says to keep the setting a waiting change of ``tool`` (to ``proposed``) would change as it
    stands on record (``current``), naming no other value of it but as set aside ("use email instead of SMS",
    "I meant email, not SMS") and asking nothing."""
    if not current or current == proposed or re.search(r"[?？]|吗|呢", text):
        return False
    if tool == "update_contact_channel":
        others = [p for channel, p in _CHANNEL_WORDS.items() if channel != current]
        other_words = "|".join(others)
        text = re.sub(rf"(?:{_SET_ASIDE_BEFORE})\s*(?:the\s+)?(?:{other_words})", " ", text, flags=re.IGNORECASE)
        return (
            current in _CHANNEL_WORDS
            and bool(re.search(rf"(?:{_KEEP_A_CHANNEL})[^，,。.;；]{{0,8}}(?:{_CHANNEL_WORDS[current]})", text))
            and not any(re.search(p, text) for p in others)
        )
    kept = _KEPT_SETTING.get((tool, current))
    return bool(kept and re.search(kept, text)) and not re.search(_NOTIFICATION.get(str(proposed), r"(?!)"), text)


# The reply telling the customer no change will be made ("好的，那我不做任何修改", "OK, I won't change anything"):
# a change still waiting is then dropped, so that no later yes makes what the customer was told would not be.
_SAYS_NOTHING_CHANGES = re.compile(r"不做任何修改|不会做任何修改|(?i:\bI\s+won'?t\s+change\s+anything\b)")


def says_nothing_changes(reply: str) -> bool:
    """Whether the agent's reply says it will make no change."""
    return bool(_SAYS_NOTHING_CHANGES.search(reply))


# The record already holds what was asked: "您的通知目前设置为开启。无需更改。", "… Nothing needs changing."
_SAYS_ALREADY_SO = re.compile(r"无需更改|不需要更改|(?i:\bnothing\s+needs\s+(?:to\s+)?chang(?:e|ing)\b)")


def says_already_so(reply: str) -> bool:
    """Whether the agent's reply says the record already holds the value asked for."""
    return bool(_SAYS_ALREADY_SO.search(reply))


# A no that picks another order for the change proposed: "no, the water bottles one", "no I meant the backpack",
# "不对，是耳机那单", "不是这个，我要退的是耳机". What it names is in one of the groups.
_PICKED_INSTEAD = re.compile(
    r"(?i:\b(?:the|my)\s+(?P<en>(?!(?:same|other|whole|entire|refund|this|that)\b)[a-z][^,.;!?]{0,30}?)\s+(?:one|order)\b"
    # "I mean the backpack", not "I mean refund 50 of it first" (a request, no thing named)
    r"|\bi\s+mean[t]?\s+(?:the\s+|my\s+)?(?P<meant>(?!(?:refund|return|change|update|mute|unmute|cancel|send|ship|just|"
    r"only|do|make|give|get|set|switch|turn|keep|leave|not|half|part)\b)[a-z][^,.;!?]{0,30})"
    r"|^\s*(?:no+|nope|nah)[\s,.!~\u2014\u2013-]+(?:the|my)\s+(?P<bare>[a-z]+(?:\s+[a-z]+)?)\s*[.!]*$)"
    # "是ORD-…那单", never "都是退一个就算" ("still/just", then a request: 都係 in Cantonese)
    r"|(?<![不都还就只])是(?![退改换关开要想说问用])(?P<zh>[^，。,.!！?？是]{1,12}?)(?:那|这)?(?:单|个|笔)?\s*(?:[，,]\s*(?:而)?不是[^，。,.]{1,12})?\s*[。.!！]*$"
)
_NO_THING = re.compile(r"(?i)^(?:这|那|这个|那个|这单|那单|it|one|same|other)$")


def picks_another(text: str, proposal: Mapping[str, Any]) -> bool:
    """Whether a no to an order's change picks another order for it ("no, the water bottles one"): the change is
    then asked again of that order, not only dropped. What the no names must not be the proposal's own thing
    ("no, the tent one" to the tent's refund is a no)."""
    if not proposal.get("order_number"):
        return False
    own = str(proposal["order_number"])[-4:]
    numbers = re.findall(r"(?i)ORD[-_ ]?\d{4}[-_ ]?(\d{4})|(?<![\d.,$¥￥])(?!(?:19|20)\d\d)(\d{4})(?![\d.,])", text)
    if any((full or tail) != own for full, tail in numbers):
        return True  # "不对，是ORD-2025-0999那单": another order by its number, found or not
    m = _PICKED_INSTEAD.search(text)
    if not m:
        return False
    named = next(group for group in m.groups() if group).strip()
    words = re.findall(r"[a-z]{3,}|[\u4e00-\u9fff]+", named.lower())
    words = [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words]
    words = [w for w in words if w not in ("one", "order")]
    summary = str(proposal.get("summary", "")).lower()
    return bool(words) and not _NO_THING.match(named) and not all(w in summary for w in words)


# What a no sets aside rather than asks for: "…, not the white house", "not 742 Evergreen", "不是徐汇区".
# A time is no value of a change either: "no. not now, maybe in 2 days", "过两天再说".
_SET_ASIDE = re.compile(
    r"(?i)\bnot\s+(?:[\w'-]+\s+){0,2}[\w'-]+|不是[^，。,.!！?？]{0,10}"
    r"|\d+\s*(?:days?|weeks?|hours?|hrs?|h\b|mins?|minutes?|months?|天|日|周|个?星期|个?礼拜|个?小时|分钟|个?月)"
)


def gives_another_value(text: str, proposal: Mapping[str, Any], current: str | None = None) -> bool:
    """Whether a no says which value the change should have instead ("no!! i said 12 Oak Street, Portland OR
    97201, not the white house", "no, sms"): a number the proposal does not hold, or a contact channel that is
    neither the one proposed nor ``current`` (the record's), before anything that says not to change. The
    change is then asked again with that value, not only dropped."""
    opener = _DECLINE.match(text)
    if not opener:
        return False
    rest = _SET_ASIDE.sub(" ", re.split(_NOT_TO_CHANGE, text[opener.end() :], maxsplit=1)[0])
    said = _numbers(" ".join(str(v) for k, v in proposal.items() if k not in CUSTOMERS_WORDS))
    channel = proposal.get("channel")
    return bool(_numbers(rest) - said) or bool(
        channel and any(re.search(p, rest) for c, p in _CHANNEL_WORDS.items() if c not in (channel, current))
    )


# A message opening by taking back the order just named: "不对", "我说错了", "sorry, I said the wrong one", "hold on, I
# mixed them up", "not this one".
_SETS_ASIDE = re.compile(
    r"(?i)^\s*(?:(?:oh|oops|whoops|sorry|wait|hmm+|no+|nope|nah|actually|hold\s+on|hang\s+on|my\s+bad|correction|"
    r"scratch\s+that|wrong\s+(?:one|order|item)|not\s+(?:that|this)(?:\s+(?:one|order))?|"
    r"i\s+(?:said|picked|chose|named|typed|gave)\s+(?:you\s+)?the\s+wrong\s+(?:one|order|item)|"
    r"i\s+mixed\s+(?:them|it|those)\s+up|i\s+mean[t]?)\b[\s,.!~\u2014\u2013-]*)+"
    # Cantonese as in_simplified leaves it: "唔係呢張", "唔啱", "我講錯咗"
    r"|^\s*(?:啊|哦|噢|呃)?(?:等等|等一下|等下|且慢)?[，,\s]*"
    r"(?:不对|不是|唔係|唔系|唔对|唔啱|我?(?:说|讲|搞|弄)错(?:了|咗)?|我?搞混(?:了|咗)?|错了)"
)


def sets_the_order_aside(text: str, proposal: Mapping[str, Any]) -> bool:
    """Whether a message opens by taking back the waiting change's order and picks another ("我说错了，是绿茶那一单",
    "hold on, I mixed them up - the backpack is the one"); a question ("ORD-2025-0817是什么？") sets nothing aside."""
    asks = re.search(r"[?？]|吗|呢(?![张单个笔件])", text)  # Cantonese "呢張" is "this one", no question
    return bool(_SETS_ASIDE.match(text)) and not asks and picks_another(text, proposal)


def opens_with_a_no(text: str) -> bool:
    """Whether ``text`` opens with a no, whatever follows it ("no, use carrier pigeon instead", "唔係，改成QQ啦"):
    the change it answers is not wanted as proposed, even where what follows asks something else."""
    return bool(_DECLINE.match(text)) and not _OWN_REQUEST.match(text)


# A no standing alone before what follows ("不，改成0901的一半吧", "no - the backpack instead"): it answers the
# proposal, whatever order the rest names.
_BARE_NO_FIRST = re.compile(
    rf"^\s*{_FILLER}(?:no+|nope|nah|不|不是|不对|不要|唔係|唔好|唔要|否|算了|算啦)\s*[,，.。!！;；—–-]+",
    re.IGNORECASE,
)


def opens_with_a_bare_no(text: str) -> bool:
    """Whether ``text`` opens with a no set apart from the rest: a no to the proposal it answers."""
    return bool(_BARE_NO_FIRST.match(text))


def is_cancellation(text: str) -> bool:
    """A no to the waiting change: opens with a decline that does not start a request of its own."""
    opener = _DECLINE.match(text)
    # what follows the no may start a request ("no, but SMS instead"); a "but" before it only leads to it
    if not opener or _OWN_REQUEST.match(text) or _DECLINE_BLOCKER.search(text, opener.end() - 1):
        return False
    rest = text[opener.end() :]  # the order a no opens with ("0942先不退了") is the one declined
    return not (re.search(r"\d", rest) and not _NEGATED_AGAIN.search(rest))


# Where a customer changes their mind within one answer ("no wait, actually yes", "yes… on second thought, no",
# "不改了，哦不对，还是改吧"): a pause or a word that takes back what came before.
_CHANGE_OF_MIND = re.compile(
    r"(?:[\s,，.。;；!！…~-]*(?:(?i:\bwait\b|\bactually\b|\bon\s+second\s+thoughts?\b|\bi\s+mean\b|\bscratch\s+that\b|"
    r"\bhold\s+on\b|\bhang\s+on\b)|(?:哦|噢|啊|呃)?不对|说错了|我是说|其实|等等|等一下|"
    r"(?<=\S)算了(?=[\s,，]*(?:还是)?(?:改|换|退|确认|办|弄|继续))|还是(?=确认|改|换|退|办|弄|继续|算了|不|别|先别)))+"
    r"[\s,，.。;；!！…~-]*|[\s]*[,，.。;；!！…]+[\s]*"
)


def final_answer(text: str, proposal: Mapping[str, Any]) -> str:
    """The answer a customer ended on when they changed their mind within the message: from the first place
    after an opening yes or no where the rest reads as a whole answer of its own ("no wait, actually yes do it
    via text" → "yes do it via text"); ``text`` itself when there is no such place. Only a yes or a no the
    customer ended on decides; what they took back is not read."""
    for m in _CHANGE_OF_MIND.finditer(text):
        head, rest = text[: m.start()], text[m.end() :]
        if not rest.strip() or not (_YES.match(head) or _DECLINE.match(head)):
            continue
        agrees = is_confirmation(rest, proposal) or bool(confirmation_then_more(rest, proposal))
        if picks_another(rest, proposal) and m.group().strip(" ,，.。;；!！…~-"):
            return rest  # "确认…等等不对，我说的是瑜伽垫那单，不是跑步鞋": the order meant, for the model
        if not agrees and not is_cancellation(rest):
            continue
        # A word that takes back, or an answer of the other kind: "好的谢谢，就这样" is one yes, and a sign-off.
        if m.group().strip(" ,，.。;；!！…~-") or agrees != bool(_YES.match(head)):
            return rest
    return text


# What waits for the customer's yes, asked: "what's pending?", "what exactly are you going to change?",
# "有什么待确认的？", "你准备帮我改什么？". The application knows; the model would guess from the transcript.
_WHAT_WAITS = re.compile(
    r"(?i:\bwhat(?:'?s|\s+is|\s+are)\s+(?:still\s+)?(?:pending|outstanding|waiting|awaiting)\b|"
    r"\b(?:anything|something|any\s+(?:changes?|requests?))\s+(?:still\s+)?"
    r"(?:pending|outstanding|open|waiting|awaiting|left)\b|"
    r"\bwhat\s+(?:exactly\s+)?(?:are|will)\s+you\s+(?:going\s+to\s+|about\s+to\s+)?(?:change|do)\b|"
    r"\bwhat\s+(?:else\s+)?(?:do\s+|does\s+)?(?:i|you)\s+(?:still\s+)?(?:need|have)\s+(?:me\s+)?to\s+"
    r"(?:confirm|approve|ok|say\s+yes\s+to)\b|"
    r"\b(?:do|must|should)\s+i\s+(?:still\s+)?(?:need\s+to\s+|have\s+to\s+)?(?:confirm|approve|ok)\s+"
    r"(?:anything|something)\b|"
    r"\b(?:anything|something)\s+(?:(?:that\s+)?i\s+(?:still\s+)?(?:need|have|must|should)\s+(?:to\s+)?|"
    r"(?:for\s+me\s+)?to\s+)(?:confirm|approve|ok)\b|"
    r"\bwhat\s+am\s+i\s+(?:confirming|approving|saying\s+yes\s+to)\b)|"
    r"(?:有)?(?:什么|啥|咩|哪些|哪个|嘢|东西)(?:是)?(?:待处理|待确认|在等(?:我)?确认|等着?我确认|等[紧緊]我确认|还没确认)|"
    r"(?:有没有|有没|有冇|有无|有)?(?:什么|啥|咩|嘢|东西|事){0,2}(?:要|需要|等着?|等[紧緊]|在等|待)我(?:去)?(?:确认|同意|批准|点头)|"
    r"(?:我)?(?:还)?(?:有|要)(?:什么|啥|咩|嘢)(?:要|需要|待|未|没)确认|待确认的?(?:有)?(?:什么|啥|咩|哪些)|"
    r"还有(?:什么|啥|咩|哪些)(?:没|未)(?:确认|办)|你(?:要|准备|打算)(?:帮我)?(?:改|做|办)(?:些)?(?:什么|啥|咩)|"
    r"我(?:要|在)确认(?:什么|啥|咩)"
)
# What may stand beside that question and ask nothing else: "ok so", "right now", "on my account", "请问".
_NOTHING_BESIDE = re.compile(
    r"(?i:\b(?:ok(?:ay)?|so|hmm+|um+|right\s+now|now|currently|at\s+the\s+moment|on\s+my\s+account|for\s+me|"
    r"please|pls|exactly|again|then|actually|sorry|wait|hi|hello|hey|still|just|yet|(?:is|are)(?:\s+there)?|on|for|from|cheers|thanks|thank\s+you|thx|ty|and|also|btw|by\s+the\s+way|"
    r"(?:that\s+)?i\s+(?:still\s+)?(?:need|have|must|should)\s+to\s+(?:confirm|approve|ok)|"
    r"(?:for\s+me\s+)?to\s+(?:confirm|approve)|my|me|confirmation|approval|go-ahead)\b)|"
    r"现在|目前|而家|宜家|依家|我的|账户上?|账号上?|请问|一下|那个|呢|吗|啊|呀|了|的|嗯|哦|好|等等|等一下|你好|您好|"
    r"还|未|咩|呀|啦|喎|嘅|吖|先|不(?=\W*$)|谢谢|多谢|唔该|感谢|顺便|问(?:一)?下|想问|另外"
)


def asks_only_what_waits(text: str) -> bool:
    """Whether ``text`` asks what waits for the customer's yes and nothing else."""
    found = _WHAT_WAITS.search(text)
    if found is None:
        return False
    rest = _NOTHING_BESIDE.sub(" ", text[: found.start()] + " " + text[found.end() :])
    return not re.search(r"[A-Za-z\u4e00-\u9fff\d]", rest)


# Where one question of a message ends: "what's pending? and where is my backpack?", "有什么待处理的，另外…".
_CLAUSE_END = re.compile(r"[,，.。?？!！;；\n]+")
_JOINED_BY = re.compile(r"(?i)^(?:\s*(?:and|also|plus|then|&|另外|还有|顺便|以及|再|同埋|仲有)\b\s*[,，]?)+\s*")


def what_waits_and_more(text: str) -> str | None:
    """The rest of a message that asks what waits for a yes among other things ("我今天有什么改动？有什么待处理的？",
    "what's pending? and where is my backpack?"): the other things, for the model; ``None`` when it asks no such
    thing, or nothing else (``asks_only_what_waits``)."""
    found = _WHAT_WAITS.search(text)
    if found is None or asks_only_what_waits(text):
        return None
    ends = [0, *(m.end() for m in _CLAUSE_END.finditer(text)), len(text)]
    start = max(at for at in ends if at <= found.start())
    end = min((at for at in ends if at >= found.end()), default=len(text))
    rest = _JOINED_BY.sub("", (text[:start] + text[end:]).strip()).strip()
    return rest if re.search(r"[A-Za-z\u4e00-\u9fff\d]", rest) else None
