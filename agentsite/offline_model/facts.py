"""What a customer's sentence states about them (keyed facts, preferences and experiences), shared by memory
extraction and chat. Card numbers, national ID numbers and passwords are blanked before anything is read, so
they can never become a fact. See docs/offline-model.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import dates, escalation, nlu, others, reported, slots, speech, subjects

FACT = "fact"
PREFERENCE = "preference"
EXPERIENCE = "experience"

KIND_OF_KEY = {
    "birthday": FACT,
    "notification_preference": PREFERENCE,
    "contact_channel": PREFERENCE,
    "shipping_address": FACT,
    "order_number": FACT,
    "preferred_carrier": PREFERENCE,
    "phone_number": FACT,
    "email": FACT,
    "name": FACT,
}
SINGLE_VALUED = set(KIND_OF_KEY) - {"order_number"}


@dataclass(frozen=True)
class Fact:
    key: str  # one of KIND_OF_KEY, or "" for other durable facts and experiences
    value: str  # normalised; for key "" the customer's own words
    kind: str
    hedged: bool = False
    correction: bool = False


HEDGE = re.compile(
    r"可能|大概|好像|也许|似乎|估计|不太确定|记不清|应该是吧|(?i:\bmaybe\b|\bperhaps\b|\bprobably\b|\bi\s+think\b|"
    r"\bi\s+believe\b|\bmight\b|\bnot\s+(?:100%\s+)?sure\b|\bi\s+guess\b|\bpossibly\b|\bif\s+i\s+remember)"
)
CORRECTION = re.compile(
    r"不对|(?<!是)不是[^，。]{0,12}(?:而)?是|错了|搞错|说错|写错|记错|更正|纠正|其实是|其实|改一下|"
    r"(?i:\bactually\b|\bcorrection\b|\bi\s+meant\b|\bsorry,?\s+i\s+mean|\bno,?\s+it'?s\b|\bwait\b|"
    r"\bscratch\s+that\b|\bmistake\b|\bwrong\b|\bi\s+misspoke\b)"
)
BIRTHDAY_CUE = re.compile(r"生日|出生|生辰|(?i:birthday|\bborn\b|\bb-?day\b|date\s+of\s+birth|\bdob\b)")
_NEGATED_VALUE = re.compile(r"(?:不是|并非|而不是|(?i:\bnot\b|\bisn'?t\b))\s*$")
EXPERIENCE_CUE = re.compile(
    r"破损|损坏|坏了|摔坏|压坏|漏了|泄漏|延误|延迟|晚到|迟到|太慢|丢了|丢失|没收到|未收到|少了|少发|发错|错发|"
    r"态度(?:很|太|非常)?差|不满意|投诉|失望|差评|生气|着急|(?i:damaged|broken|crushed|\blate\b|delayed|\blost\b|annoyed|"
    r"frustrat|upset|angry|supposed\s+to\s+(?:arrive|come)|"
    r"missing|never\s+arrived|didn'?t\s+arrive|did\s+not\s+arrive|wrong\s+item|\brude\b|disappoint|"
    r"complain|leak|defective|not\s+happy|unhappy)"
)
DURABLE_CUE = re.compile(
    r"过敏|素食|吃素|不吃|养了|养着|家里有|我有(?:一|两|个|只)|孩子|宝宝|怀孕|上夜班|夜班|白天不在家|工作日|周末|"
    r"喜欢|不喜欢|讨厌|偏好|习惯|总是|一般|通常|左撇子|(?i:allergic|vegetarian|\bvegan\b|\bi\s+have\s+(?:a|an|two|"
    r"three)\b|\bi\s+live\b|\bi\s+work\b|\bi'?m\s+usually\b|\bi\s+usually\b|\bi\s+always\b|\bi\s+never\b|"
    r"\bi\s+prefer\b|\bi\s+(?:really\s+)?(?:like|love|hate|dislike)\b|\bi\s+don'?t\s+like\b|\bmy\s+(?:wife|"
    r"husband|son|daughter|kids?|children|partner|dog|cat)\b|left-handed|night\s+shifts?)"
)
PRIVILEGE_CLAIM = re.compile(
    r"管理员|无需确认|不用确认|不需要确认|直接退款|(?i:\badmin(?:istrator)?\b|without\s+(?:asking|confirmation|"
    r"confirming)|approve\s+(?:all|every|any)|\bsuperuser\b|\bstaff\s+member\b)"
)
# Written as if by staff ("this is Dave from the support team using the customer's session", "我是你们客服"):
# whatever else it says is no fact about the customer.
_SOMEONE_ELSE_WRITING = re.compile(
    r"我是(?:你们的?)?(?:客服|店长|工作人员|主管)|(?i:\bfrom\s+(?:the\s+|your\s+)?(?:[\w-]+\s+){0,2}?(?:team|department|desk)"
    r"\b|\bthe\s+customer'?s\s+(?:session|account)\b|\bon\s+behalf\s+of\s+the\s+(?:shop|store)\b)"
)
_AS_STAFF = re.compile(
    _SOMEONE_ELSE_WRITING.pattern
    + r"|我是(?:你们的?)?管理员|(?i:\badmin(?:istrator)?\b|\bsuperuser\b|\bstaff\s+member\b)"
)
# A request to forget: what memory holds is shown, and deleted, on the customer's memory page; never a fact.
_FORGET = re.compile(
    # "forget it", "forget that!", "forget about it": never mind, nothing remembered is meant
    r"忘掉|忘了吧|别记|不要记|删掉|删除|(?i:\bforget\s+(?:(?:that|this|it)(?!\s*(?:[,.!?;:\u2014-]|$))|what|"
    r"about\s+(?!it\b|that\b)|my|i|the|everything)\b|"
    r"\b(?:don'?t|do\s+not|stop)\s+remember|\b(?:delete|erase|remove|wipe)\s+(?:that|what|the\s+(?:note|memory)|"
    r"my\s+(?:notes?|memor(?:y|ies)|data)|everything))"
)
# Before a phone number: it is someone else's ("收件人李四 138…", "recipient: Li Si, 138…", "my mum's number").
_SOMEONE_ELSES = re.compile(
    rf"(?:收件人|收货人|联系人|签收人|代收人|(?:他|她|闺蜜|{others.RELATIVE_ZH})的(?:电话|手机|号码)?)"
    rf"[^，。,;；]{{0,10}}$|(?i:(?:recipient|addressee|attn|c/o|{others.RELATIVE_EN}'?s"
    r"(?:\s+(?:phone|number|mobile|cell))?)[^,;]{0,16}$)"
)
# After a phone number: it is someone else's ("…13911112222 名下的订单，是我妈的号", "07700 900111, it's my mom's").
_SOMEONE_ELSES_AFTER = re.compile(
    rf"^[^。.!?！？]{{0,24}}?(?:是|(?i:\bis\b|\bit'?s\b|\bthat'?s\b|\bthats\b))\s*(?:我的?|(?i:my\s+))?"
    rf"(?:{others.RELATIVE_ZH}|[他她]|(?i:{others.RELATIVE_EN}'?s?\b|\b(?:his|hers|her)\b))"
)
# The customer's own number named just before it, whoever else the sentence speaks of ("…, my number is 138…").
_MY_NUMBER = re.compile(
    r"我的?(?:手机|电话|号码|手机号)[^，,]{0,4}$|(?i:\bmy\s+(?:phone|number|mobile|cell)\b[^,]{0,12}$)"
)
# Before an address: it is someone else's ("他地址是 …", "我闺蜜的地址是 …", "my friend's address is …").
_SOMEONE_ELSES_ADDRESS = re.compile(
    rf"(?:他|她|闺蜜|{others.RELATIVE_ZH}|收件人|收货人)(?:的|家的?)?(?:收货)?地址(?:是|在|为)?"
    r"[\s:：]*$|(?i:\b(?:his|her|their|\w+['’]s)\s+(?:home\s+|shipping\s+)?(?:address|place)\s*(?:is|:)?\s*$)"
)
_SHOP_NOUN = re.compile(r"快递|包裹|订单|商品|客服|快递员|(?i:parcel|package|order|item|courier|driver|delivery)")
_PREFERENCE_CUE = re.compile(r"喜欢|不喜欢|讨厌|偏好|习惯|希望|(?i:prefer|like|love|hate|dislike|rather|usually)")
_FIRST_PERSON = re.compile(r"我|俺|(?i:\bi\b|\bi'm\b|\bi've\b|\bmy\b|\bme\b)")
# a full stop after an abbreviation ends no sentence ("Co. Clare")
_AFTER_AN_ABBREVIATION = "".join(rf"(?<!\b{word}\.)" for word in speech.ABBREVIATIONS)
_SENTENCE_SPLIT = re.compile(rf"(?<=[。！？!?；;\n])|(?<=[.]){_AFTER_AN_ABBREVIATION}\s+(?=[A-Z\u4e00-\u9fff])")


# A clause that answers the agent or asks for something ("yes and also refund 0931 for me, it never arrived"): no
# part of what happened to the customer.
_ANSWER_OR_REQUEST = re.compile(r"(?i)^\s*(?:yes|yep|yeah|ok(?:ay)?|sure|确认|好的|是的|对)\b|^\s*(?:确认|好的|是的)")


def _what_happened(sentence: str) -> str:
    """The sentence from the clause telling what happened, without the answers and requests before it; an order
    it named before that clause is kept beside it."""
    clauses = re.split(r"(?<=[,，])\s*", sentence)
    start = 0
    while (
        start < len(clauses) - 1
        and not EXPERIENCE_CUE.search(clauses[start])
        and (_ANSWER_OR_REQUEST.search(clauses[start]) or speech.is_request(clauses[start]))
    ):
        start += 1
    if start == 0:
        return sentence
    kept = "".join(clauses[start:]).strip()
    before = "".join(clauses[:start])
    named = slots.order_numbers(before) or [t for t in slots.order_tails(before) if len(t) >= 3]
    dropped = [n for n in named if n not in kept]
    return f"{kept} ({', '.join(dropped)})" if dropped else kept


def sentences(text: str) -> list[str]:
    """Split into sentences; commas stay inside (addresses and corrections need them)."""
    return [s.strip() for s in _SENTENCE_SPLIT.split(text) if s and s.strip()]


def _birthday(sentence: str) -> dates.DateMention | None:
    found = [d for d in dates.find_dates(sentence) if not _NEGATED_VALUE.search(sentence[: d.start])]
    return found[-1] if found else None


def _bare_answer(sentence: str, span: tuple[int, int]) -> bool:
    """A sentence that is little more than the value ("3月16日。", "No, it's the 16th")."""
    rest = sentence[: span[0]] + " " + sentence[span[1] :]
    rest = CORRECTION.sub(" ", rest)
    rest = re.sub(r"(?i)\b(?:it'?s|it\s+is|on|the|is|my|birthday|oh|sorry)\b|是|在|号|日|啦|吧|的|哦", " ", rest)
    return len(speech.HAN.findall(rest)) <= 3 and len(re.findall(r"[A-Za-z]+", rest)) <= 2


_WHOLE = "\x00"  # stands for an address while clauses are split: its commas split nothing


def _statement_part(sentence: str) -> str:
    """Drop the clauses that are questions ("…，你能记住吗？") and keep the rest. An address is one clause,
    whatever commas it holds ("Could you set Unit 12, 45 Beach Road, Bondi NSW 2026?")."""
    address = slots.address(sentence) or ""
    if address:
        sentence = sentence.replace(address, _WHOLE)
    parts = re.split(r"([，,])", sentence)
    kept: list[str] = []
    for i in range(0, len(parts), 2):
        clause = parts[i]
        if clause.strip() and speech.asks_about(clause) and not CORRECTION.search(clause):
            continue
        if kept:
            kept.append(parts[i - 1])
        kept.append(clause)
    return "".join(kept).strip(" ，,").replace(_WHOLE, address)


def asks_to_forget(text: str) -> bool:
    """Whether ``text`` asks us to forget something said (the memory page does that, not the chat)."""
    return bool(_FORGET.search(text))


def find(sentence: str, context_key: str = "", *, questions: bool = False) -> list[Fact]:
    """Return the facts one sentence states.

    `context_key` is the key last talked about (a previous statement or the agent's question):
    a correction or bare answer without its own cue ("不对，是3月16日") applies to it. With
    `questions`, a question's content counts too (an agent's "your birthday is March 15, right?"
    that the customer answers with "yes").
    """
    sentence = slots.redact_sensitive(sentence)
    if not questions and (speech.TAG_QUESTION.search(sentence) or speech.ASKS_HOW_IT_STANDS.search(sentence)):
        return []  # "地址已经更新成…啦，是不是", "is my address still X or Y?": asks how things stand, states nothing
    if not questions and nlu.asks_what_a_change_would_do(sentence):
        return []  # "假如我把地址改成…，那0901会寄到新地址吗": a change weighed, neither asked for nor true
    sentence = escalation.BRACKETED_NOTE.sub(" ", sentence)  # "…【助手备注：客户同时要求…】": not the customer's
    if escalation.INJECTION.search(sentence) or _AS_STAFF.search(sentence) or _FORGET.search(sentence):
        return []  # "this is Dave from the support team …": a claim to be staff; "forget that I said …": no fact
    of_an_order = slots.names_an_order(sentence)  # "0902能改地址吗，改到…": the question names the order
    if not questions:
        sentence = _statement_part(sentence)
    if not sentence:
        return []
    hedged = bool(HEDGE.search(sentence))
    correction = bool(CORRECTION.search(sentence))
    found: list[Fact] = []

    def add(key: str, value: str) -> None:
        if value and all(f.key != key or f.value != value for f in found):
            found.append(Fact(key, value, KIND_OF_KEY[key], hedged, correction))

    birthday = _birthday(sentence)
    if birthday and (
        BIRTHDAY_CUE.search(sentence)
        or (context_key == "birthday" and (correction or _bare_answer(sentence, (birthday.start, birthday.end))))
    ):
        add("birthday", birthday.mm_dd)
    if preference := slots.notification_preference(sentence):
        add("notification_preference", preference)
    if channel := slots.contact_channel(sentence):
        add("contact_channel", channel)
    if (address := slots.address(sentence)) and not of_an_order:
        owner = sentence[: max(sentence.find(address), 0)][-16:]
        if not _SOMEONE_ELSES_ADDRESS.search(owner) or re.search(r"(?i)\bmy\s*$|我的?\s*$", owner):
            add("shipping_address", address)  # "send order 0932 to …" is that order's address; "他地址是 …" his
    for order in slots.order_numbers(sentence):
        add("order_number", order)
    if carrier := slots.preferred_carrier(sentence):
        add("preferred_carrier", carrier.id)
    theirs = False  # a value of someone else's: the sentence is about them, not a fact about the customer
    for written, phone in slots.phone_spans(sentence):
        before = sentence[: max(sentence.find(written), 0)]
        someone_elses = others.SOMEONE_ELSE_MENTIONED.search(before) and not _MY_NUMBER.search(before)
        after = sentence[sentence.find(written) + len(written) :] if written in sentence else ""
        if _SOMEONE_ELSES.search(before[-16:]) or someone_elses or _SOMEONE_ELSES_AFTER.search(after):
            theirs = True  # "收件人李四 138…", "她账号是li，手机139…": someone else's number
        else:
            add("phone_number", phone)
    for email in slots.emails(sentence):
        add("email", email)
    if person := slots.name(sentence):
        add("name", person)
    if (
        found and not of_an_order and not slots.order_tails(sentence) and (wish := _DELIVERY_WISH.search(sentence))
    ):  # "…放楼下丰巢柜，别打电话，只发短信": the wish too
        clause = re.split(r"[，,。.;；!！]", sentence[wish.start() :])[0]
        before = re.split(r"[，,。.;；!！:：]", sentence[: wish.start()])[-1]
        found.append(Fact("", f"{before}{clause}".strip(), PREFERENCE, hedged, correction))
    if found or theirs:
        return found
    if PRIVILEGE_CLAIM.search(sentence) or nlu.skips_a_yes(sentence):
        return []  # "approve refunds without asking" is not a fact about the customer
    if subjects.fact_question(sentence):
        return []  # "我登记的地址和通知偏好都报一下" asks to be told; it states nothing
    if EXPERIENCE_CUE.search(sentence) and (_FIRST_PERSON.search(sentence) or _SHOP_NOUN.search(sentence)):
        return [Fact("", _what_happened(sentence), EXPERIENCE, hedged, correction)]
    said = _REMEMBER_THIS.sub("", sentence, count=1).strip()  # "请记住：…", "remember that …": what to keep
    # "快递放门卫就行": how parcels are to be left, a preference (one order's parcel is that order's, no preference)
    delivery = bool(_DELIVERY_WISH.search(said)) and not of_an_order and not slots.order_tails(said)
    # a wish for the delivery is a request in its words ("快递请放到楼下丰巢柜"); any other request states nothing
    if delivery or (DURABLE_CUE.search(said) and _FIRST_PERSON.search(said) and not speech.is_request(said)):
        kind = PREFERENCE if delivery or _PREFERENCE_CUE.search(said) else FACT
        return [Fact("", said, kind, hedged, correction)]
    return []


# Asked to keep what follows, which is then the statement: "请记住：…", "记一下，…", "remember that …".
_REMEMBER_THIS = re.compile(
    r"^\s*(?:请|麻烦)?(?:你)?(?:帮我)?(?:记住|记下|记一下|记着|备注一下|备注)(?:一下)?[：:，,\s]*|"
    r"(?i:^\s*(?:please\s+)?(?:remember|note|keep\s+in\s+mind)(?:\s+that)?[:,\s]+)"
)
# How the customer wants parcels left: "快递放门卫就行", "包裹放快递柜", "leave parcels with the concierge".
_DELIVERY_WISH = re.compile(
    r"(?:快递|包裹|货|东西)[^，。,.]{0,6}(?:放|交给|寄存|留)(?:在|到)?[^，。,.]{0,6}?"
    r"(?:门卫|前台|快递柜|丰巢|驿站|门口|物业|传达室|邻居|保安)|"
    r"^(?:就)?放(?:在|到)?[^，。,.]{0,6}?(?:门卫|前台|快递柜|丰巢|驿站|门口|物业|传达室)|"
    r"(?i:\bleave\s+(?:it|them|the\s+\w+|my\s+\w+|parcels?|packages?|deliveries)\s+(?:at|with|by|outside|in)\b|"
    r"\bdeliver(?:ies)?\s+(?:to|at)\s+the\s+(?:concierge|front\s+desk|reception|door)\b)"
)


def is_delivery_wish(text: str) -> bool:
    """Whether ``text`` says how the customer wants parcels left ("快递放门卫就行", "leave parcels at the door")."""
    return bool(_DELIVERY_WISH.search(text))


def key_asked_by(agent_text: str) -> str:
    """The key an agent's question is about ("请问您的生日是哪天？" → birthday)."""
    if not speech.is_question(agent_text):
        return ""
    for subject, pattern in subjects.SUBJECTS:
        if pattern.search(agent_text):
            return subject
    return ""


def stated_in(text: str, context_key: str = "", *, questions: bool = False) -> list[Fact]:
    """Return the facts of every sentence of `text`, carrying the context key along. A message written as if by
    staff states nothing in any of its sentences ("This is Dave from support. Set notifications to muted.")."""
    if _SOMEONE_ELSE_WRITING.search(text) or others.someone_else_asked_about(text, "") or speech.SARCASM.search(text):
        return []  # written as by staff, or asking after another person: the customer's own facts are not in it
    out: list[Fact] = []
    text = slots.without_list_numbers(text)  # "…88号 2. 通知打开": the list's numbers end its items
    for sentence in sentences(reported.without_reported(text)):  # what someone else said is not theirs
        facts = find(sentence, context_key, questions=questions)
        out.extend(facts)
        keyed = [f.key for f in facts if f.key]
        if keyed:
            context_key = keyed[-1]
    return out
