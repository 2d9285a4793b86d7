"""Small talk: greetings, thanks, goodbyes, acknowledgements, apologies and questions about what the agent is.
Each family is a word pattern and, where a message could open like it and ask for more, the words that make it
something else; ``nlu.classify`` reads them after every request a message could hold. See
docs/offline-model.md.
"""

from __future__ import annotations

import re

from .speech import is_question


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


GREETING = _re(
    r"^\s*(?:亲[爱的]*(?:客服)?[，,\s]*)?(?:你好|您好|嗨|哈喽|哈罗|早上好|上午好|中午好|下午好|晚上好|早安|早|在吗|在不在|有人吗|有人在吗|"
    r"新年好|节日快乐|新年快乐|客服你好|客服在吗)|你是谁|你是机器人|你叫什么|你好吗|"
    r"(?i:^\s*(?:hello|hi+|hey+|heya|hiya|howdy|hallo|yo|sup|greetings|good\s+(?:morning|afternoon|evening|day))\b|"
    r"how\s+are\s+you|who\s+are\s+you|"
    r"are\s+you\s+(?:a\s+)?(?:bot|robot|human|real)|what'?s\s+up|what\s+can\s+you\s+(?:do|help(?:\s+me)?\s+with)|"
    r"how\s+can\s+you\s+help|what\s+(?:do\s+you\s+do|are\s+you\s+for|kind\s+of\s+(?:things|questions)))"
    r"|你(?:能|可以|会)(?:帮我)?(?:做|处理|解决|回答|办)?(?:哪些|什么)|我(?:可以|能)问(?:你)?(?:哪些|什么)|你(?:负责|管)(?:哪些|什么)|你会什么"
)
# Small talk. A question about what the agent is ("are you a real person?") is not a request for one.
BOT_QUESTION = _re(
    r"(?:机器人|机器|AI|人工智能|自动回复|自动的|自动|智能助手|智能客服|大模型|模型|程序|真人|真的人|真的是人|人在|是人|小蜜|是系统|"
    r"系统(?:在)?回|还是系统|"
    r"活人|人工回复|人工客服|人工|谁在回|对面|意识)"
    r"|(?i:\b(?:bot|chat\s*bot|robot|ai|a\.i\.|artificial|automated|automatic|auto-?reply|machine|computer|"
    r"program|virtual\s+assistant|chatgpt|gpt|llm|language\s+model|human|person|real|someone|somebody)\b"
    r"|\blive\s+(?:agent|person|chat|support|human)\b|\bare\s+you\s+live\b)"
)
# …asked of the agent ("are you…", "is this…", "am I talking to…", "是机器人在回我吗"), not of a product.
_TO_THE_AGENT = _re(
    r"你|您|这是|是不是|回我|回复|跟我聊|在回|在打字|聊天|对面|对话|(?i:\b(?:you|you'?re|this|these\s+replies|talking|speaking|"
    r"chatting|on\s+the\s+other\s+end|reading\s+this|here)\b)"
)
_PRODUCT = _re(r"扫地|音箱|推荐|(?i:vacuum|speaker|recommend|reviews?|courier|captcha)")
# Asking to be put through is a request for a person, not a question about what the agent is.
_WANTS_A_PERSON = _re(
    r"转(?:人工|接)|找(?:个)?(?:真人|人工|人来)|接人工|让真人|我要(?:人工|真人)|"
    r"(?i:speak\s+(?:to|with)|talk\s+(?:to|with)|get\s+me|put\s+me\s+through|connect\s+me|transfer|take\s+over|"
    r"\bget\s+(?:a|an|some|someone|somebody)\b|hand\s+(?:me|this)|"
    r"i\s+(?:want|need|'?d\s+like)|let\s+me|can\s+i\s+(?:get|have|speak|talk))"
)


def asks_if_bot(text: str) -> bool:
    return (
        (
            is_question(text)
            or bool(re.search(r"吧|还是|[不没][\s。.!！]*$|我怎么觉得|(?i:sound\s+like|can'?t\s+tell)", text))
        )
        and bool(BOT_QUESTION.search(text) and _TO_THE_AGENT.search(text))
        and not (_WANTS_A_PERSON.search(text) or _PRODUCT.search(text))
    )


GOODBYE = _re(
    r"再见(?!到)|拜拜|(?<![一-龥])拜(?![托年访])|回头见|回见|再会|下次(?:再)?(?:见|聊)|改天(?:再)?聊|先(?:走|撤|下)了|下线了|"
    r"先这样|就这样吧?|没(?:有)?(?:别的|其他|什么)(?:事|问题)?了|没事了|晚安|(?:结束|可以结束)(?:对话|聊天)?了?|"
    r"对话(?:可以)?结束|聊完了|^\s*88+6?\s*$|"
    r"(?i:\bbye\b|bye-?bye|good\s*-?bye|see\s+(?:you|ya)\b|that'?s\s+(?:all|it)\b|nothing\s+else|\bcya\b|"
    r"have\s+a\s+(?:good|nice|great|lovely)\s+(?:day|one|evening|night|weekend)|good\s*night|take\s+care|"
    r"talk\s+(?:to\s+you\s+)?(?:later|soon)|\bttyl\b|catch\s+you\s+later|signing\s+off|logging\s+off|"
    r"i'?ll\s+(?:go|be\s+off|leave)\s+now|i'?m\s+(?:off|leaving|done)\b|gotta\s+go|got\s+to\s+go|"
    r"end\s+(?:the|this)\s+chat|so\s+long\b|peace\s+out|farewell|later\s*!|until\s+next\s+time)"
)
_GOODBYE_BLOCKER = _re(r"[?？]|(?i:\b(?:don'?t|before|wait|one\s+more|if)\b)|等一下|稍等|如果|怎么|吗|还会|之前")


def says_goodbye(text: str) -> bool:
    return bool(GOODBYE.search(text)) and not _GOODBYE_BLOCKER.search(text)


# An acknowledgement opens with one of these words and asks for nothing (see `_acknowledges`).
ACKNOWLEDGE = _re(
    r"^\s*(?:(?:(?i:oh|ah+|hmm+|um+|well)|哦+|噢+|喔+|嗯+|啊|亲)[\s,，.。!！~]*)?"
    r"(?:好(?!人)的?|好滴|好哒|好嘞|好吧|ok的|嗯+|哦+|噢+|喔+|行吧?|知道了|知道啦|晓得了|晓得|明白(?:了|啦)?|了解(?:了|啦)?|懂了|懂|收到|"
    r"清楚(?:了)?|原来(?:是这样|如此)|这样啊|是这样啊|get(?:了|到了)?|"
    r"(?i:ok(?:ay|ie|ies)?|k+|alright|all\s+right|right|got\s+(?:it|you)|gotcha|i\s+see|understood|noted|"
    r"makes\s+sense|good\s+to\s+know|fair\s+enough|roger(?:\s+that)?|i\s+hear\s+you|i\s+understand|cool|great|"
    r"fine|perfect|nice|sounds\s+good|clear|will\s+do|no\s+worries|that'?s\s+(?:clear|fine|good|great)|okey(?:\s+dokey)?|"
    r"ah\s+right|that\s+makes\s+sense|i\s+get\s+it|got\s+that|copy\s+that|sure|fair))"
    r"(?![A-Za-z])"
)
# What makes a message that opens like an acknowledgement something more.
_ACK_BLOCKER = _re(
    r"[?？]|(?i:\b(?:but|however|cancel|don'?t|no|not|go\s+ahead|do\s+it|please|switch|change|refund|return|want|"
    r"need|can|could|would|where|what|when|why|how|which|yes|yeah|confirm|proceed)\b)"
    r"|帮|给我|改|退|换|吗|呢|但|不|没|怎么|什么|为什么|多久|哪|确认|继续|要|屁|货|快递|东西"
)


def acknowledges(text: str) -> bool:
    return bool(ACKNOWLEDGE.match(text)) and not _ACK_BLOCKER.search(text) and len(text) <= 80


# An apology for the customer's own slip, asking for nothing (other requests are read before it).
APOLOGY = _re(
    r"不好意思|抱歉|对不起|见谅|原谅|是我(?:的问题|的错|自己)|(?:打|说|发|输|写|弄|搞|记|看|填)(?:错|混)|误会了|理解错|乱打|重复发|"
    r"(?i:\bsorry\b|\bsry\b|my\s+(?:bad|mistake|fault|apologies)|\bapologi[sz]e|\bapologies\b|\boops\b|\bwhoops\b|"
    r"pardon\s+(?:me|the|my)|forgive\s+me|\btypo\b|i\s+(?:misread|misunderstood|mixed\s+(?:it|them)\s+up|got\s+confused|"
    r"made\s+a\s+mistake)|wrong\s+(?:one|order|number|chat|message|link|screenshot))"
)
_APOLOGY_BLOCKER = _re(
    r"[?？]|(?i:\bbut\b|sorry\s+to\s+say|you\s+should|your\s+apolog|\bcan\s+(?:i|you)\b|\bi\s+(?:want|need)\b)"
    r"|道歉|有什么用|不需要|不用了|吗|请问|能(?:帮|不能|否)|我想|我要|帮我|你们|你刚才"
)


def apologises(text: str) -> bool:
    return bool(APOLOGY.search(text)) and not _APOLOGY_BLOCKER.search(text)
