"""One message, several requests: where a message asking two things ("check where ORD-… is, and from now
on contact me on WeChat") is cut, and what each part asks (docs/offline-model.md, "Several requests")."""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import described, slots
from .escalation import asks_to_cancel_an_order
from .nlu import (
    ACTIONABLE,
    ASKS_WHAT_CHANGED_HERE,
    EVERY_REFUND,
    REFUND,
    TO_THE_ADDRESS_SAID,
    Intent,
    Understanding,
    asks_on_its_own,
    asks_what_a_change_would_do,
    classify,
    policy_topic,
    skips_a_yes,
    without_opener,
)
from .speech import is_question
from .subjects import listed_subjects

# Where one request may end and the next begin: punctuation, then linking words ("and also", "另外").
_BOUNDARY = re.compile(
    r"(?:[，,；;。.!！?？\n]+|(?<=[A-Za-z]):|\s\+\s|\s&\s(?=[A-Za-z]+\s))\s*(?:(?i:and|also|plus|then|but|oh)\b[\s,，]*)*"
    r"|\s+(?i:and\s+(?:also\s+)?(?:then\s+)?|also\s+|plus\s+|as\s+well\s+as\s+)(?=\w)"
    r"|还有|另外|(?<!也)顺便|然后|并且|并(?=把|将|帮|给)|同时|以及|再(?=帮|给|把|查|看|改|换|问)"
    r"|[和及与跟](?=\s*(?:订单|单号)?\s*(?i:ORD)[-_ ]?\d{4})"  # "我的联系方式和ORD-2025-0817的退款记录": two things
)


_ABOUT_AN_ORDER = (Intent.REFUND, Intent.TRACK, Intent.STATUS)
# "them"/"它们" in a part after one naming the notifications ("switch my notifications to sms and also turn them
# off on weekends"): the notifications, which the part is read with.
_PRONOUN = re.compile(r"(?i)\b(?:them|they|it)\b|它们|它")


# An order spoken of as "it" ("send it to …", "把它寄到…"), in a part after one naming it.
_IT = re.compile(
    r"(?i)\b(?:send|ship|deliver|redirect|forward|move)\s+(?:it|this|that|this\s+one|that\s+one)\b|把它|这单|那单"
)
# A tag that makes the clause before it a question ("…, right?", "…，对吧？").
_TAG = re.compile(
    r"(?i)\s*(?:right|correct|yes|yeah|isn'?t\s+it|wasn'?t\s+it|didn'?t\s+(?:it|you|they)|hasn'?t\s+it|haven'?t\s+you|"
    r"no|ok|对吧|是吧|对不对|是不是|没错吧|对吗|是吗)\s*[?？]"
)
# A part naming only a thing of the customer's ("my notifs", "我的地址"), after another: asked about.
_ONLY_A_THING_OF_MINE = re.compile(
    r"(?i)\s*(?:my|我的)\s*(?![^.!~。！]*\b(?:is|are|was|were|has|have|had|got|keeps?|does|do)\b)[\w-]+(?:\s+[\w-]+)?"
    r"\s*[.!~。！]*\s*"
)


def with_referent(part: str, before: str) -> str:
    """``part`` with a pronoun standing for the notifications the message named before it put back."""
    if slots.NOTIFICATION_NOUN.search(part) or not slots.NOTIFICATION_NOUN.search(before):
        return part
    if classify(part).intent is not Intent.OTHER or not (found := _PRONOUN.search(part)):
        return part
    noun = "通知" if found.group().startswith("它") else "notifications"
    return f"{part[: found.start()]}{noun}{part[found.end() :]}"


# Words that make refunds asked after every order's rather than the one named before ("我有没有退款记录？", "any
# refunds on my account?"); "有冇退款记录？" after "瑜伽垫张单…" is that order's.
_EVERY_ORDER_OF_MINE = re.compile(r"我|所有|全部|任何|都|(?i:\bmy\b|\bany\b|\ball\b|\bever\b|\baccount\b)")


_TASKS_ANNOUNCED = re.compile(
    r"(?i)^\s*(?:(?:帮我|请|麻烦)?(?:做|办)?[两二三四几]件事(?:情)?|[两二三四几]个(?:事|问题|请求|要求)"
    r"|(?:two|three|four|a\s+few|several|a\s+couple\s+of|couple\s+of)\s+(?:things|requests|questions))\s*(?:please\s*)?[：:]"
)
_BY_A_CHANNEL = re.compile(
    r"(?i)\s*(?:or\s+)?(?:by|via|through|over|on)\s+(?:phone|sms|text|e-?mail|wechat|call)\s*[?？.]*\s*"
    r"|\s*(?:还是)?(?:用|通过)?(?:电话|短信|邮件|微信)(?:吗|呢)?\s*[?？。]*\s*"
)
# An order named by its number or its end ("ORD-2025-0931", "0931").
_AN_ORDER = r"(?<![\d-])(?:ORD[-_ ]?\d{4}[-_ ]?)?\d{4}(?!\d)"
_ORDER_REF = re.compile(rf"(?i){_AN_ORDER}")
# "refunds on 0880, 0923, 0924?": a comma between order numbers lists orders, it cuts no request
_ENDS_AN_ORDER = re.compile(rf"(?i){_AN_ORDER}\s*$")
_NEXT_ORDER_LISTED = re.compile(rf"(?i)(?:(?:and|or)\s+)?{_AN_ORDER}\s*(?:$|[,，、?？.。!！]|(?:and|or)\s|[和或])")
# The items of a list of the customer's facts ("我的默认地址、通知、联系方式、0902退款情况分别是什么？")
_LIST_ITEM_GAP = re.compile(r"\s*(?:[、,，]\s*(?:(?i:and)\s+)?|\s(?i:and)\s+|以及|[和及与])\s*")
# A part naming only another order, asked as the part before it was ("0942呢？", "and 0931?", "what about 0923?").
_ONLY_ANOTHER_ORDER = re.compile(
    rf"(?i)(?:(?:and|what\s+about|how\s+about|also)\s+)?(?:(?:order|the\s+order)\s+)?{_AN_ORDER}"
    r"\s*(?:too|as\s+well)?\s*[?？]?|"
    rf"(?:那|还有|那么)?(?:订单)?\s*{_AN_ORDER}\s*(?:呢|的呢|怎么样|也是)\s*[?？]?"
)
_MORE_THAN_A_LIST = re.compile(r"[？?。!！；;\n]|还有|另外|顺便|然后|并且|同时|(?i:\balso\b|\bplus\b)")
_LINKING = re.compile(r"还有|另外|顺便|以及|并且|同时|(?i:\balso\b|\bplus\b|\bas\s+well\s+as\b)")
_WHICH = re.compile(r"(?i)\s*(?:which|what)\b|\s*哪")
_LINKING_START = re.compile(r"(?i)^\s*(?:(?:and|also|plus|then|but|oh|so)\b[\s,，]*)+")


@dataclass(frozen=True)
class Request:
    """One request of a message: its words (with the message's one order number when it names none)."""

    text: str
    understood: Understanding


@dataclass(frozen=True)
class _Part:
    """Where a request starts (the index of its first part), what it asks and the words of that part."""

    first: int
    understood: Understanding
    words: str


def _same_request(a: _Part, b: Understanding, part: str) -> bool:
    """Two parts asking the same thing (``a``: the request so far). Policy questions
    about different topics are two ("how long do refunds take, and do you ship to Ireland?": each looked up
    in its own words); one naming no topic goes with the one before ("…refund policy? How long does it take?").
    So are two parts naming different things bought."""
    if bool(ASKS_WHAT_CHANGED_HERE.search(a.words)) != bool(ASKS_WHAT_CHANGED_HERE.search(part)):
        return False  # "刚才你都帮我办了什么？台灯那单退了没有？": what this chat changed, then an order's refund
    if a.understood.intent is Intent.POLICY and b.intent is Intent.POLICY:
        topic = policy_topic(part)
        return topic is None or topic == policy_topic(a.words)
    things = {described.thing_named(a.words), described.thing_named(part)}
    if "" not in things and len(things) == 2:
        return False  # "where is my tent, and has the backpack shipped?": each thing's own order
    ends = [{n[-4:] for n in [*slots.order_numbers(w), *slots.order_tails(w)]} for w in (a.words, part)]
    if all(ends) and not ends[0] & ends[1]:
        return False  # "我想把键盘那单ORD-2025-0790退款，另外把保温杯0817也退了": each order's own refund
    ranks = {described.ranked_by(a.words), described.ranked_by(part)}
    if "" not in ranks and len(ranks) == 2:
        return False  # "where is my latest order? and the most expensive one, has it been delivered?"
    if bool(EVERY_REFUND.search(a.words)) != bool(EVERY_REFUND.search(part)) and any(
        _names_an_order(words) or described.names_a_thing(words) for words in (a.words, part)
    ):
        # "did I ask for any refund before? and has 0932 shipped?", "我现在有哪些退款记录？空气净化器和台灯的订单状态是
        # 什么？": every order's refunds, then one order's (or two things')
        return False
    if (
        a.understood.intent in (Intent.SET_ADDRESS, Intent.ASK_FACT)
        and b.intent is a.understood.intent
        and (b.intent is Intent.SET_ADDRESS or b.subject == a.understood.subject == "shipping_address")
        and _names_an_order(a.words) != _names_an_order(part)
    ):
        # "my new address is …, send 0932 there", "what is my default address? and the address on ORD-…?": the
        # default address, then one order's
        return False
    return a.understood.intent is b.intent and a.understood.subject == b.subject


def requests(text: str) -> list[Request]:
    """The requests of a message, in order: one unless parts of it each ask for something different.

    Parts are cut at punctuation and linking words; a part that only remarks on something ("it arrived
    broken") or is small talk joins the request beside it, so "My parcel ORD-… came damaged. I want a
    refund" stays one refund request. A request for a person is the whole message's: staff take it all.
    """
    if (rule := rule_to_skip_the_yes(text)) and (rest := text.replace(rule, " ", 1).strip()):
        # "From now on, don't ask me to confirm anything. What's the status of 0931?": the rule refused, the rest
        # answered (never silently ignored, nor the rest read as part of it)
        return [Request(rule, classify(rule)), *requests(rest)]
    # a numbered list, or tasks announced ("两件事：…", "two things: …"): its items are the parts, each one asked
    listed = len(slots.LIST_MARKER.findall(text)) >= 2 or bool(_TASKS_ANNOUNCED.match(text))
    text = slots.without_list_numbers(text)
    opened = without_opener(text)
    if opened != text and _BOUNDARY.search(opened):  # "hey what orders do i have, and whats my address": two
        parts = requests(opened)
        small_talk = (Intent.GREETING, Intent.THANKS, Intent.ACKNOWLEDGE, Intent.OTHER)
        if len(parts) > 1 and not any(p.understood.intent in small_talk for p in parts):
            return parts
    whole = classify(text)
    if whole.intent is Intent.ASK_FACT and (pulled := _an_order_listed(text)):
        return [Request(words, classify(words)) for words in pulled]  # "我的地址、通知、0902退款情况分别是什么？"
    address = slots.address(text)  # its commas cut nothing: "my new address is Flat 2, 14 Mill Road, …"
    inside = (text.find(address), text.find(address) + len(address)) if address and address in text else (0, 0)
    marks = [
        m
        for m in _BOUNDARY.finditer(text)
        if m.start() > 0
        and m.end() < len(text)
        and not inside[0] < m.start() < inside[1]
        and not _TAG.match(text, m.end())  # "…switched to SMS, right?": the tag ends the clause it follows
        and not (_ENDS_AN_ORDER.search(text, 0, m.start()) and _NEXT_ORDER_LISTED.match(text, m.end()))
    ]
    starts, ends = [0, *(m.end() for m in marks)], [*(m.start() for m in marks), len(text)]
    groups: list[_Part] = []
    told: _Part | None = None  # the part before, if it named a request without asking it
    for i, (start, end) in enumerate(zip(starts, ends, strict=True)):
        # Read with its question mark, without the linking word it opens with ("Also, where is …?").
        part = _LINKING_START.sub("", text[start:end] + ("?" if text[end : end + 1] in ("?", "？") else ""))
        part = with_referent(part, text[:start])
        understood = classify(part)
        if understood.intent is Intent.OTHER and _ONLY_A_THING_OF_MINE.fullmatch(part):
            part = f"{part.strip()}?"  # "…, right? also my notifs": asked about, as "my notifs?" is
            understood = classify(part)
        if _BY_A_CHANNEL.fullmatch(part):  # "How will you contact me, by phone?": the channel, not the number
            understood = Understanding(Intent.ASK_FACT, understood.lang, "contact_channel", understood.injection)
        if understood.intent is Intent.OTHER and is_question(part) and _names_an_order(part):
            # "…, also is 0931 ok??": a question about an order asks how it stands, never joins the request
            # before it (a refund of 0870 once took 0931 with it)
            understood = Understanding(Intent.STATUS, understood.lang, "", understood.injection)
        if (
            understood.intent is Intent.OTHER
            and described.ranked_by(part)
            and (is_question(part) or _WHICH.match(part))
        ):
            # "where is my latest order? and the priciest one?": asked the same; "which is my most expensive
            # order, and …": how it stands
            understood = groups[-1].understood if groups else Understanding(Intent.STATUS, understood.lang, "", False)
        # after a linking word ("…到哪了，还有订单ORD-…的状态"), what a part asks about is asked
        linked = i > 0 and bool(_LINKING.search(marks[i - 1].group()))
        asked = asks_on_its_own(part, understood) or ((listed or linked) and understood.intent in ACTIONABLE)
        if (
            understood.intent is Intent.HUMAN
            and asks_to_cancel_an_order(part)
            and not REFUND.search(part)
            and _names_another_order(part, text[:start])
        ):
            asked = True  # "0817…能退不？还有0816能取消吗？": staff cancel 0816, never a refund read with 0817's
        named = told is not None and told.first == i - 1 and told.understood.intent is Intent.OTHER
        if asked and named and told is not None:  # "…? and what about the most expensive one, has it shipped?"
            if not (groups and _same_request(groups[-1], understood, f"{told.words} {part}")):
                groups.append(_Part(told.first if groups else 0, understood, f"{told.words} {part}"))
        elif asked and not (groups and _same_request(groups[-1], understood, part)):
            groups.append(_Part(i if groups else 0, understood, part))
        elif understood.intent is Intent.OTHER and described.ranked_by(part):
            told = _Part(i, understood, part)  # an order named by its rank, asked about by the part after it
            continue
        elif understood.intent in ACTIONABLE and not asked:
            told = _Part(i, understood, part)  # "我之前问过退款的事": said, and asked about by the part after it
            continue
        elif (
            told is not None
            and told.first == i - 1
            and understood.intent is Intent.OTHER
            and is_question(part)
            and not (groups and _same_request(groups[-1], told.understood, told.words))
        ):
            groups.append(_Part(told.first if groups else 0, told.understood, told.words))  # "…，结果怎么样了"
        told = None
    # "what are my address and contact channel?": answered as one, unless a part asks something the list does
    # not hold ("… and is there a refund on 0924?", "… ? and how do you contact me?")
    listed_here = listed_subjects(text)
    asks_more = any(
        g.understood.intent in (*_ABOUT_AN_ORDER, Intent.LIST_ORDERS)
        or (g.understood.intent is Intent.ASK_FACT and g.understood.subject not in listed_here)
        for g in groups
    )
    lists_facts = whole.intent is Intent.ASK_FACT and len(listed_here) > 1 and not asks_more
    # "单号最后三位816，发货没": its parts ask about the one order those digits end; found once, for all of it
    # (not "how do you contact me now, and where is 0931?", nor the items of a list)
    about_the_order = all(
        g.understood.intent in (*_ABOUT_AN_ORDER, Intent.EXPEDITE) and not EVERY_REFUND.search(g.words) for g in groups
    )  # "did I ask for any refund before? and has 0932 shipped?": every order's refunds, then that one
    # ("…0932, and tell me where my backpack is": the backpack's order is its own)
    own_thing = any(described.names_a_thing(g.words) and not slots.order_tails(g.words) for g in groups)
    lists_facts = lists_facts or (
        slots.order_tail(text) is not None and about_the_order and not listed and not own_thing
    )
    weighed = asks_what_a_change_would_do(text)  # "if I mute them, will I still get…": its "if" is no request
    if len(groups) < 2 or whole.intent is Intent.HUMAN or whole.injection or lists_facts or weighed:
        return [Request(text, whole)]
    numbers, tails = slots.order_numbers(text), slots.order_tails(text)
    firsts = [g.first for g in groups]
    found: list[Request] = []
    for group, after in zip(groups, [*firsts[1:], len(starts)], strict=True):
        part = with_referent(text[starts[group.first] : ends[after - 1]].strip(), text[: starts[group.first]])
        if (mark := text[ends[after - 1] : ends[after - 1] + 1]) in ("?", "？"):
            part = f"{part}{mark}"  # "notifications on or off? address?": asked, as its part was read
        understood = classify(part)
        if understood.intent is Intent.OTHER and _ONLY_A_THING_OF_MINE.fullmatch(part):
            part = f"{part}?"  # "also my notifs": asked about
        if understood.intent is Intent.OTHER:  # "ok so just confirm for me: what's my address": what its part asks
            understood = group.understood
        if (
            len(numbers) == 1
            and not slots.order_numbers(part)
            and not slots.order_tails(part)  # "…退款 ORD-2025-0942, and check 一下 0941 物流": 0941's own
            and understood.intent in _ABOUT_AN_ORDER
            # "我之前是不是申请过退款？0943的地址改了没？": every order's refunds; "Status of 0923? Any refund?": its
            and (not EVERY_REFUND.search(part) or _refunds_of_the_order_before(part, text[: starts[group.first]]))
            and not described.PICKED_BY_STATE.search(part)  # "那个运输中的啥时候到？…0850…": the one in transit
            and not described.names_a_thing(part)  # "我的跑步鞋到哪了，还有订单ORD-…的状态": the shoes' own order
        ):
            part = f"{part} {numbers[0]}"  # "it", "that order": the one the message names
        elif (
            len(numbers) == 1
            and understood.intent is Intent.SET_ADDRESS
            and not _names_an_order(part)
            and _IT.search(part)
        ):
            part = f"{part} {numbers[0]}"  # "when will ORD-… arrive? and can u send it to (1 Main St Austin)": its
        elif (
            len(tails) == 1
            and not numbers
            and not _names_an_order(part)
            and _about_an_order(understood, part)
            and (not EVERY_REFUND.search(part) or _refunds_of_the_order_before(part, text[: starts[group.first]]))
            and not described.PICKED_BY_STATE.search(part)
            and not described.names_a_thing(part)  # "…0932, and where is my backpack?": the backpack's own order
        ):
            part = f"{tails[0]} {part}"  # "那0816寄到哪？还没发货能不能也改成新地址": that order's too
        elif (
            not numbers
            and not tails
            and understood.intent in _ABOUT_AN_ORDER
            and not described.thing_named(part)
            and not (EVERY_REFUND.search(part) and _EVERY_ORDER_OF_MINE.search(part))
            and not described.PICKED_BY_STATE.search(part)
            and (before := described.things_compared(text[: starts[group.first]]))
            and (len(before) == 1 or described.CHEAPER.search(part) or described.DEARER.search(part))
        ):
            # "保温杯点解仲未到？可唔可以帮我退咗佢": the one thing the message named before, the part's order; "耳机和
            # 键盘哪个便宜？便宜的那个帮我退掉": the things compared
            things = "和".join(before) if understood.lang == "zh" else " and the ".join(before)
            part = f"{things}那单：{part}" if understood.lang == "zh" else f"{part} (the {things})"
        if (
            address
            and understood.intent is Intent.SET_ADDRESS
            and not slots.address(part)
            and TO_THE_ADDRESS_SAID.search(part)
        ):
            # "…, send 0932 there": the address this message gives
            there = re.search(r"(?i)\bthere\b", part)
            part = f"{part[: there.start()]}to {address}{part[there.end() :]}" if there else f"{part}: {address}"
        if found and (asked_again := _the_same_of_another(found[-1].text, part)):
            part, understood = asked_again, classify(asked_again)  # "0943可以退款吗？0942呢？": 0942 asked the same
        found.append(Request(part, understood))
    if len({_what_it_asks(r) for r in found}) < 2:
        return [Request(text, whole)]
    return found


_SENTENCE = re.compile(r"[^。.!！?？\n]+[。.!！?？\n]*")


def rule_to_skip_the_yes(text: str) -> str:
    """The sentences of ``text`` that lay down a rule skipping the customer's yes ("以后退款不用问我，直接退"), or
    ""."""
    return "".join(m.group() for m in _SENTENCE.finditer(text) if skips_a_yes(m.group())).strip()


# Words that make a refund question about every order, not the one named before it ("any refunds on my account?").
_EVERY_ORDER_SAID = re.compile(r"我|所有|全部|任何|都|哪|(?i:\bmy\b|\ball\b|\bever\b|\baccount\b|\borders\b|\bwhich\b)")


def _refunds_of_the_order_before(part: str, before: str) -> bool:
    """Whether ``part``, a refund question naming no order ("Any refund?", "有退款吗？"), follows the one order the
    message named and says nothing of every order: it asks about that order's refunds."""
    named = slots.order_numbers(before) or slots.order_tails(before)
    return bool(named) and not _EVERY_ORDER_SAID.search(part)


def _an_order_listed(text: str) -> list[str]:
    """A list of the customer's facts with an order's question among its items, as two requests: the facts
    without it, and the items naming an order (one run of them) asked on their own; none otherwise."""
    if _MORE_THAN_A_LIST.search(text.rstrip("？?。.!！ ")):
        return []  # "那个运输中的啥时候到？还有我的地址和通知…": sentences, each read as its own part
    gaps = [(m.start(), m.end()) for m in _LIST_ITEM_GAP.finditer(text) if m.start() > 0 and m.end() < len(text)]
    bounds = [0, *(cut for gap in gaps for cut in gap), len(text)]
    items = list(zip(bounds[::2], bounds[1::2], strict=True))
    naming = [i for i, (start, end) in enumerate(items) if _names_an_order(text[start:end])]
    if not naming or len(naming) == len(items) or naming != list(range(naming[0], naming[-1] + 1)):
        return []
    start, end = items[naming[0]][0], items[naming[-1]][1]
    cut = (gaps[naming[0] - 1][0], end) if naming[0] > 0 else (start, gaps[naming[-1]][1])
    mark = "？" if re.search(r"[\u4e00-\u9fff]", text) else "?"
    facts, asked = (
        (words if words[-1:] in ("?", "？") else words + mark)
        for words in ((text[: cut[0]] + text[cut[1] :]).strip(), text[start:end].strip())
    )
    return [facts, asked] if len(listed_subjects(facts)) > 1 else []


def _the_same_of_another(before: str, part: str) -> str:
    """The request before asked again of the one order ``part`` names and nothing else ("0942呢？", "and 0931?",
    "what about 0923?"): its words with that order's in place of the one it named; "" otherwise."""
    if not _ONLY_ANOTHER_ORDER.fullmatch(part.strip()):
        return ""
    named, now = [*slots.order_numbers(before), *slots.order_tails(before)], _ORDER_REF.search(part)
    if len(named) != 1 or now is None or not (was := _ORDER_REF.search(before)):
        return ""
    return f"{before[: was.start()]}{now.group()}{before[was.end() :]}"


def _about_an_order(understood: Understanding, part: str) -> bool:
    """A request about one order, or one sending an order to an address said ("也改成新地址")."""
    return understood.intent in _ABOUT_AN_ORDER or (
        understood.intent is Intent.SET_ADDRESS and not slots.address(part) and bool(TO_THE_ADDRESS_SAID.search(part))
    )


def _names_another_order(part: str, before: str) -> bool:
    """Whether ``part`` names an order and the words before it name another ("cancel my order and refund me",
    "取消订单0816，把钱退我" are one request)."""
    ends = [{n[-4:] for n in [*slots.order_numbers(w), *slots.order_tails(w)]} for w in (part, before)]
    return bool(ends[0] and ends[1] and not ends[0] & ends[1])


def _names_an_order(part: str) -> bool:
    return bool(slots.order_numbers(part) or slots.order_tails(part))


def _what_it_asks(request: Request) -> tuple[object, ...]:
    """What tells two requests apart: intent and subject, a policy's topic, the thing bought named, the order's
    rank named, and for an address whether one order's is meant."""
    address_of_an_order = (
        request.understood.intent is Intent.SET_ADDRESS or request.understood.subject == "shipping_address"
    ) and _names_an_order(request.text)
    understood = request.understood
    return (
        understood.intent,
        understood.subject,
        _topic_of(request),
        described.thing_named(request.text),
        address_of_an_order,
        bool(EVERY_REFUND.search(request.text)),  # "have i ever requested a refund? also how is 0931 doing"
        described.ranked_by(request.text),  # "where is my latest order? and the priciest one?"
    )


def _topic_of(request: Request) -> str | None:
    return policy_topic(request.text) if request.understood.intent is Intent.POLICY else None
