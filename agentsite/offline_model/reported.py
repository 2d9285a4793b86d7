"""Reported speech: words someone else said, quoted in the customer's message ("我妈刚发微信跟我说：“以后微信联系你吧”",
'The courier texted: "we will deliver to 9 Rose Court"'). They are data the customer shows us, never the
customer's own request or a fact about them: the clause that reports them goes before anything is read.
The customer quoting themselves ("我说了“改成18号”", 'I said "change it to SMS"') or us is not reported here.
See docs/offline-model.md.
"""

from __future__ import annotations

import re

# Who said them: a person other than the customer and the shop, or a message they sent.
_SOMEONE_ZH = (
    r"(?:妈|爸|老婆|老公|媳妇|爱人|对象|男朋友|女朋友|朋友|闺蜜|同事|室友|邻居|领导|老板|哥|姐|弟|妹|儿子|女儿|孩子|家人|亲戚|"
    r"他|她|快递员|快递小哥|司机|别人|有人|对方|物业|前台|微信|短信|消息|邮件|留言|纸条|客服|工作人员|店家|商家|卖家)"
)
_SOMEONE_EN = (
    r"(?:mum|mom|mother|dad|father|wife|husband|partner|boyfriend|girlfriend|friend|sister|brother|son|daughter|"
    r"neighbou?r|colleague|boss|flatmate|roommate|landlord|he|she|they|someone|somebody|courier|driver|postman|"
    r"text|message|email|sms|note|label)"
)
# A verb that reports words.
_SAYS_ZH = (
    r"(?:说|讲|问|写(?:道|着|的是)?|回复|内容(?:是|为)?|原话|原文|"
    r"发(?:来|了)?(?:给我)?(?:的)?(?:一条|条)?(?:微信|消息|短信|信息|邮件))"
)
_SAYS_EN = (
    r"(?:said|says|told\s+(?:me|us)|tells\s+(?:me|us)|texted(?:\s+(?:me|us))?|wrote|writes|messaged(?:\s+(?:me|us))?|"
    r"emailed(?:\s+(?:me|us))?|asked|replied|reads)"
)
_QUOTED = r"(?:“[^”]*”?|「[^」]*」?|『[^』]*』?|\"[^\"]*\"?|‘[^’]*’?)"
# Reported words: quoted after someone and a verb that reports them, or after them and a colon to the end of the
# sentence. The clause that reports them goes too ("我妈刚发微信跟我说：" says how she wrote, which is no request).
_CLAUSE = r"[^，。！？；,.!?;\n“「『\"‘:：]"
# Between the verb and the words: "texted me this, no idea what he means: "…"" (commas, not a sentence's end).
_TO_THE_WORDS = r"[^。！？.!?;；\n“「『\"‘:：]{0,60}?"
_REPORTED = re.compile(
    rf"{_CLAUSE}*?(?:{_SOMEONE_ZH}|(?i:\b{_SOMEONE_EN}\b)){_CLAUSE}*?(?:{_SAYS_ZH}|(?i:\b{_SAYS_EN}\b)){_TO_THE_WORDS}"
    rf"(?:[:：,，]?\s*{_QUOTED}|[:：]\s*[^。！？!?\n]*)"
)


# A message forwarded whole ("--- forwarded message --- From: … ---", "以下是转发的邮件：…"): someone else's, to the
# next rule of dashes or the end.
_FORWARDED = re.compile(
    r"(?is)-{2,}\s*(?:begin\s+)?(?:forwarded|original)\s+(?:message|e-?mail|mail|text)\s*-{2,}.*?(?:-{3,}|$)"
    r"|(?:-{2,}\s*)?(?:以下(?:是|为))?转发(?:的)?(?:消息|邮件|内容|短信|微信)\s*[-:：]*.*?(?:-{3,}|$)"
    r"|(?m:^)\s*(?:fwd?|转发)\s*[:：].*?(?:-{3,}|\Z)"
)


def without_reported(text: str) -> str:
    """``text`` without the words someone else said and the clause reporting them, and without a message
    forwarded whole."""
    text = _FORWARDED.sub(" ", text).strip() if _FORWARDED.search(text) else text
    kept, at = [], 0
    for found in _REPORTED.finditer(text):
        kept.append(text[at : found.start()])
        at = found.end()
    if not kept:
        return text
    kept.append(text[at:])
    return re.sub(r"^[\s，,。.：:;；\-–—]+", "", "".join(kept)).strip()
