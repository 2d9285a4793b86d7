"""A value taken back in the same message: "地址改成文三路15号，哦不对，18号", "switch me to sms, actually no, make
it phone", "refund ORD-2025-0931, sorry I mean 0932". The message is read as the customer meant it: what it
asked, with the value they gave last (docs/offline-model.md, "A value taken back").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from . import slots, speech

# A correction opening a clause: after punctuation or at the start, so "味道不对" (tastes wrong) and "can't wait"
# correct nothing; one that says so anywhere ("门牌号写错了"). English words that also start clauses of their own
# ("actually", "sorry", "no") count only when they take something back ("actually no", "sorry, I mean", "no, …").
_MARKER = re.compile(
    r"(?:[说說讲講打写寫搞弄填][错錯]了)[，,。.;；!！\s:：]*"
    r"|(?:^|(?<=[，,。.;；!！?？~～…\s]))\s*(?:"
    r"(?:哦|噢|喔|啊|呃|额|嗯|唔)?(?:[不唔][对對係][不唔][对對係]|[不唔][对對係啱]|不是不是|不是|[更纠糾]正一下|更正|"
    r"等等|等一下|[等]一[阵陣]|算了)(?=[，,。.;；!！\s:：…]|$)"
    r"|(?i:(?:no+\s*,?\s*)?wait\s*,?\s*(?:no\b)?|no\s*(?=[,.;:!—–-])|(?:sorry|oops|my\s+bad)\s*(?=[,.;:!—–-])|"
    r"(?:sorry|oops|my\s+bad)\s*,?\s*(?:i\s+meant?\b|make\s+(?:it|that)\b|no\b|typo\b|wrong\s+(?:one|number|address)\b)|i\s+meant?\b(?!\s+it\b)|"
    r"actually\s*,?\s*(?:(?:nah|nope|no)\s*,?\s*)?(?:no\b|make\s+(?:it|that)\b|change\s+(?:it|that)\b|i\s+meant?\b)|"
    r"(?:nah|nope)\s*,?\s*make\s+(?:it|that)\b|scratch\s+that|"
    r"correction|or\s+rather|make\s+that\b)"
    r")"
)
# The later part adds to the first rather than replacing it: "…, wait, also ORD-…", "等等，ORD-…也退".
_ADDS_BEFORE = re.compile(
    r"还有|也|以及|另外|再|顺便|(?i:\b(?:also|too|and|as\s+well|plus|another|btw|by\s+the\s+way)\b)"
)
_ADDS_AFTER = re.compile(r"^[^，,。.;；!！?？]{0,16}?(?:也|还要|(?i:\btoo\b|\bas\s+well\b))")


Span = tuple[int, int]


def _span_of(found: str, text: str) -> Span | None:
    at = text.find(found) if found else -1
    return (at, at + len(found)) if at >= 0 else None


def _order_at(text: str) -> Span | None:
    m = re.search(r"(?<![A-Za-z0-9])ORD[-_ ]?\d{4}[-_ ]?\d{4,6}(?![0-9])", text, re.I)
    return m.span() if m else None


def _order_end_at(text: str) -> Span | None:
    """Where the end of an order's number stands ("帮我退0901，不对，是0902"), when the text has no whole one."""
    tails = slots.order_tails(text)
    return _span_of(tails[0], text) if tails else None


def _address_at(text: str) -> Span | None:
    return _span_of(slots.address(text) or "", text)


def _channel_at(text: str) -> Span | None:
    spans = [m.span() for _, pattern in slots.CHANNEL_PATTERNS if (m := re.search(pattern, text))]
    return min(spans, default=None)


def _money_at(text: str) -> Span | None:
    m = slots.MONEY_RE.search(text)
    return m.span() if m else None


# A thing given alone after a correction: "…，不对，是瑜伽垫", "哦不对，我是说瑜伽垫吧".
_THING_ALONE_ZH = re.compile(
    r"(?:我说的是|我是说|应该是|就是|是)?([\u4e00-\u9fff]{2,6}?)(?:那单|那个|那笔|才对|吧|啦|呀)?"
)


def _thing_at(text: str) -> Span | None:
    """Where a thing bought is named ("refund the backpack - no wait, I meant the water bottles")."""
    from .described import NOT_A_THING_ZH, thing_named  # described reads facts, which read rules reading this

    if thing := thing_named(text):
        return _span_of(thing, text)
    alone = _THING_ALONE_ZH.fullmatch(text.strip(" ，,。.:：;；…!！"))
    return _span_of(alone.group(1), text) if alone and not NOT_A_THING_ZH.search(alone.group(1)) else None


# Each kind of value a correction replaces, found in the part before the correction and the part after it.
# An address before an order's end: a ZIP code ("…DC 20500") is read as the address's, never as an order's end.
_KINDS: tuple[Callable[[str], Span | None], ...] = (
    _order_at,
    _address_at,
    _order_end_at,
    _channel_at,
    _money_at,
    _thing_at,
)


def whole_address(taken_back: str, given: str) -> str:
    """``given`` completed from ``taken_back``: a Chinese one without its city or district, an English one
    without its town ("17 Mill Lane" for "7 Mill Lane, Oxford OX1 2AB"). One in the other script is whole as given
    ("Flat B, 12/F, 688 Nathan Road, …" for "香港九龙旺角弥敦道688号12楼B室"): never spliced into it."""
    if bool(speech.HAN.search(given)) != bool(speech.HAN.search(taken_back)):
        return given
    if "," not in given and taken_back.lower().startswith(given.strip().lower() + ","):
        return taken_back  # "12 Oak St Apt 4B" of "12 Oak St Apt 4B, Shelbyville": that one, whole
    street = re.match(r"\s*\d+[A-Za-z]?\s+(\D+?)\s*$", given)
    if street and street.group(1).lower() in taken_back.lower() and "," not in given:
        end = taken_back.lower().index(street.group(1).lower()) + len(street.group(1))
        return given.rstrip() + taken_back[end:]
    return _zh_whole_address(taken_back, given)


def _zh_whole_address(taken_back: str, given: str) -> str:
    """``given`` with the city or district it leaves out taken from ``taken_back``: "…西湖区文三路15号", then
    "文三路18号" is "…西湖区文三路18号"."""
    for length in range(len(given), 1, -1):
        at = taken_back.find(given[:length])
        if at > 0:
            return taken_back[:at] + given + _building_after_the_number(taken_back[at:], given)
        if at == 0:
            break
    return given


def _building_after_the_number(taken_back: str, given: str) -> str:
    """The building and room ``taken_back`` names after its street number, when ``given`` corrects only that
    number ("科技园路12号A栋301室", then "应该是科技园路 21 号"): "A栋301室"."""
    if not re.search(r"\d+\s*号\s*$", given):
        return ""
    number = re.search(r"\d+\s*号(?!楼)", taken_back)
    rest = taken_back[number.end() :] if number else ""
    return rest if re.match(r"[A-Za-z0-9\u4e00-\u9fff\s-]*?(?:栋|座|幢|单元|室|层|楼)", rest) else ""


# Only the number given again: "不是，是1204", "应该是401号", "no wait, 14".
_NUMBER_ONLY = re.compile(
    r"^\s*(?:是|应该是|改成|改为|换成|要|(?i:it'?s|make\s+it|number))?\s*(\d+[A-Za-z]?)\s*(号楼|号|室|楼|栋|层|弄)?"
    # the building and room that go with the new number: "是101号 2单元502"
    r"(?:[\s，,]*((?:[A-Za-z0-9]+\s*(?:号楼|栋|座|幢|单元|室|层|楼)\s*)+[A-Za-z0-9]*))?"  # "是200号，20楼" too
    r"\s*(?:才对|吧|啊|哈|(?i:please|instead))?\s*[。.!！]*\s*$"
)


def _number_corrected(address: str, tail: str) -> str | None:
    """``address`` with its number given again in ``tail`` ("不是，是1204"): the last number before the same
    unit (号, 室 …), else the last number; ``None`` unless ``tail`` gives only a number."""
    m = _NUMBER_ONLY.match(tail.lstrip(" ，,。.:：;；"))
    if not m:
        return None
    number, unit = m.group(1), m.group(2)
    found = list(re.finditer(rf"\d+[A-Za-z]?(?=\s*{re.escape(unit)})", address)) if unit else []
    found = found or list(re.finditer(r"\d+[A-Za-z]?", address))  # "…3号1202", then "是1203室"
    if not found:
        return None
    # the house number leads an address in Latin script ("12 Oak Street, Portland, OR 97201": never the ZIP); in a
    # Chinese one the last number is the most precise ("…3号1202")
    last = found[0] if not unit and not speech.HAN.search(address) else found[-1]
    # the unit is written once: "深南大道 100 号" corrected to "200号" is "深南大道 200 号"
    written = number + (unit or "") if unit and not address[last.end() :].lstrip().startswith(unit) else number
    if more := m.group(3):  # a building and room given with it take the place of any after the number
        after = address[last.end() :]
        kept = after[: len(after) - len(after.lstrip())] + unit if unit and after.lstrip().startswith(unit) else ""
        return address[: last.start()] + written + kept + more.strip()
    return address[: last.start()] + written + address[last.end() :]


# One value in place of another: "it's flat 3C not 3B", "14 not 12", "apt 4 not apt 3", "unit 5, not unit 2" (the
# unit's word, when given, says which number of the address is meant).
_FLAT_WORDS = r"apt|apartment|unit|flat|suite|ste"
_UNIT_WORD = rf"(?:{_FLAT_WORDS}|room|rm)"
_X_NOT_Y = re.compile(
    rf"(?i)\b([A-Za-z]?\d+[A-Za-z]?)\s*,?\s+not\s+(?:(?P<unit>{_UNIT_WORD})\.?\s*#?\s*)?([A-Za-z]?\d+[A-Za-z]?)\b"
)
# The same in Chinese, the old number first: "不是100号啊，我说了是200号20楼" (and the floor or room with it).
_NOT_Y_BUT_X = re.compile(
    r"(?:不是|不对)[^，。]{0,4}?(\d+)\s*(号|室|栋)[^0-9]{0,12}?是\s*(\d+)\s*\2((?:[，,\s]*\d+\s*(?:楼|层|室|单元))*)"
)


# What follows a correction when it takes the request back rather than giving another value.
_WITHDRAWN = re.compile(
    r"^[\s,，.。!！…-]*(?:算了|不要了|不用了|不退了|不改了|不换了|别(?:退|改|换)了|先不|还是(?:先)?不|"
    r"还是(?:保持|维持|关着|开着|留着|老样子|原样|照旧|用原来的)|"  # "把通知打开吧，呃不对，还是关着吧"
    r"(?i:don'?t\b|do\s+not\b|never\s*mind|nvm\b|forget\s+(?:it|that)\b|cancel\s+that\b|scratch\s+that\b|"
    r"not\s+(?:now|yet)\b|leave\s+it\b|i'?ll\s+keep\b))"
)


def takes_back(text: str) -> bool:
    """Whether the message asks for something and then takes it back ("refund ORD-…, no wait, don't, I'll keep
    them", "0816退款，哦不对，算了"): nothing is asked for in the end."""
    markers = [m for m in _MARKER.finditer(text) if m.group().strip()]
    if not markers:
        return False
    last = markers[-1]
    tail = text[last.end() :]
    if last.group().strip().startswith("算了") and not tail.strip(" ，,。.!！"):
        return True
    return bool(_WITHDRAWN.match(tail)) and not any(value_at(tail) is not None for value_at in _KINDS)


# A place named again in place of one in the address: "make it Bath not Bristol", "Leeds, not York", "是黄浦区不是
# 徐汇区", "不是徐汇区，是黄浦区" (the place set aside must be in the address proposed).
_PLACE_NOT_PLACE = re.compile(
    r"\b(?!(?:No|Nope|Yes|Yeah|Ok|Okay|Well|So|Oh|Wait|It|Make)\b)(?P<new>[A-Z][A-Za-z'-]+(?:\s+[A-Z][A-Za-z'-]+)?)\s*,?\s+(?i:not|instead\s+of|rather\s+than)\s+"
    r"(?P<old>[A-Z][A-Za-z'-]+(?:\s+[A-Z][A-Za-z'-]+)?)\b"
    r"|(?P<new_zh>[\u4e00-\u9fff]{1,8}?[省市区县镇路街道])[，,\s]*(?:而)?不是(?P<old_zh>[\u4e00-\u9fff]{1,8}?[省市区县镇路街道])"
    r"|不是(?P<old_zh2>[\u4e00-\u9fff]{1,8}?[省市区县镇路街道])[，,\s]*(?:而)?是(?P<new_zh2>[\u4e00-\u9fff]{1,8}?[省市区县镇路街道])"
)


def _place_swapped(proposed: str, text: str) -> str | None:
    for m in _PLACE_NOT_PLACE.finditer(text):
        new = re.sub(r"^(?:应该是|就是|是|改成|改为)", "", m.group("new") or m.group("new_zh") or m.group("new_zh2"))
        old = m.group("old") or m.group("old_zh") or m.group("old_zh2")
        if old.isascii() and (at := re.search(rf"(?i)\b{re.escape(old)}\b", proposed)):
            return proposed[: at.start()] + new + proposed[at.end() :]
        if not old.isascii() and old in proposed:
            return proposed.replace(old, new, 1)
    return None


# A flat or unit added to an address just proposed, or given again: "but make it apt 4B", "add unit 5", "it's flat
# 2", "no wait, apt 4", "sorry, unit 12".
_UNIT_ADDED = re.compile(
    r"(?i)(?:\b(?:make\s+it|add|it'?s|its|with|plus|in|at|wait|no|sorry|oops|meant?|should\s+be)\s*[,.!]*\s+|^\s*)"
    rf"((?:{_FLAT_WORDS})\.?\s*#?\s*[A-Za-z0-9-]{{0,5}}\d[A-Za-z0-9-]{{0,5}})\b"
)
_UNIT_NAMED = re.compile(rf"(?i)\b(?:{_FLAT_WORDS})\b\.?\s*#?\s*[A-Za-z0-9-]+")
_STREET_END = re.compile(
    r"(?i)^(.*?\b(?:st|street|rd|road|ave|avenue|lane|ln|drive|dr|way|blvd|boulevard|terrace|court|ct|place|pl|close|row)\b\.?)"
)


def _unit_added(proposed: str, text: str) -> str | None:
    """``proposed`` with the flat or unit a message adds, after its street ("12 Oak St Apt 4B, Shelbyville"), or
    in place of the one it names ("no wait, apt 4"); ``None`` when it gives none."""
    unit = _UNIT_ADDED.search(text)
    if not unit or speech.HAN.search(proposed):
        return None
    if named := _UNIT_NAMED.search(proposed):  # its word as proposed, the number given: "Apt 3" → "Apt 4"
        given = re.search(r"[A-Za-z0-9-]+$", unit.group(1))
        kept = re.sub(r"[A-Za-z0-9-]+$", given.group() if given else "", named.group())
        return proposed[: named.start()] + kept + proposed[named.end() :]
    street = _STREET_END.match(proposed) or re.match(r"^([^,]*)", proposed)
    if street is None:
        return None
    return f"{street.group(1)} {unit.group(1)}{proposed[street.end() :]}"


# A postcode given again for the address proposed: "sorry, the zip is 97205", "postcode should be LS1 4AB".
_POSTCODE_GIVEN = re.compile(
    rf"(?i)\b(?:zip(?:\s*code)?|post\s*code|postal\s*code)\s*(?:is|should\s+be|=|:)?\s*(?P<code>{slots._POSTAL})\b"
)


def _postcode_corrected(proposed: str, text: str) -> str | None:
    """The address proposed with the postcode a message gives in place of its own, else ``None``."""
    given = _POSTCODE_GIVEN.search(text)
    if not given:
        return None
    codes = list(re.finditer(rf"(?<![\w-])(?:{slots._POSTAL})(?![\w-])", proposed))
    if not codes:
        return f"{proposed.rstrip(' ,')} {given.group('code').upper()}"
    last = codes[-1]
    return proposed[: last.start()] + given.group("code").upper() + proposed[last.end() :]


def corrected_address(proposed: str, text: str) -> str | None:
    """The address a message corrects ``proposed`` to ("不对 是101号", "确认 不过门牌号写错了 应该是401号", "no wait,
    14 Oak Lane", "make it Bath not Bristol"): the number, the place or the whole address given after the
    correction, else ``None``."""
    if swap := _X_NOT_Y.search(text):  # "flat 3C not 3B"; "apt 4 not apt 3": the 3 after "apt" in "3 Elm St Apt 3"
        was = re.escape(swap.group(3))
        after_unit = rf"(?i)(?<={swap.group('unit')}\s)\s*#?\s*{was}\b" if swap.group("unit") else ""
        at = (re.search(after_unit, proposed) if after_unit else None) or re.search(rf"(?i)\b{was}\b", proposed)
        if at:
            now = proposed[at.start() : at.end()].replace(swap.group(3), swap.group(1))
            return proposed[: at.start()] + now + proposed[at.end() :]
    if swapped := _place_swapped(proposed, text):
        return swapped
    if with_code := _postcode_corrected(proposed, text):
        return with_code
    if with_unit := _unit_added(proposed, text):
        return with_unit
    if (swap := _NOT_Y_BUT_X.search(text)) and (
        old := re.search(rf"(?<!\d){swap.group(1)}\s*{swap.group(2)}", proposed)
    ):
        building = re.sub(r"[，,\s]", "", swap.group(4))
        return proposed[: old.start()] + swap.group(3) + swap.group(2) + building + proposed[old.end() :]
    markers = [m for m in _MARKER.finditer(text) if m.group().strip()]
    if not markers:
        return None
    tail = text[markers[-1].end() :]
    if given := slots.address(tail):
        return whole_address(proposed, given)
    return _number_corrected(proposed, tail)


def _corrected_once(text: str) -> str | None:
    for marker in reversed(list(_MARKER.finditer(text))):
        if not marker.group().strip():
            continue
        head, tail = text[: marker.start()], text[marker.end() :]
        number, _, rest = tail.replace(";", "；").partition("；")
        if (old := slots.address(head)) and (new := _number_corrected(old, number)):
            # "…2号楼1203 不是，是1204"; in a list, the items after it stay ("…；不对，是200号；通知关掉")
            return head.replace(old, new).rstrip(" ；;") + (f"；{rest}" if rest.strip() else "")
        for value_at in _KINDS:
            was, given = value_at(head), value_at(tail)
            if was is None or given is None:
                continue
            (before, old_end), (after, new_end) = was, given
            if _ADDS_BEFORE.search(tail[:after]) or _ADDS_AFTER.search(tail[after:]):
                continue
            if value_at is _address_at and (old := slots.address(head)) and (new := slots.address(tail)):
                return head[:before] + whole_address(old, new) + tail[after + len(new) :]
            asked_after = head[old_end:]  # no other value of the kind, nor a correction: "SMS, no wait, email."
            if (
                _SAYS_WHAT_TO_DO.search(asked_after)
                and value_at(asked_after) is None
                and not _MARKER.search(asked_after)
            ):
                # the request follows the value ("跑步鞋的退款，啊不对，是瑜伽垫那单", "0901退款，不对，是0902"): the
                # new value takes the old one's place and the request is kept
                rest = tail[new_end:]
                more = f"，{rest.strip(' ，,。.')}" if _SAYS_WHAT_TO_DO.search(rest) else ""
                return head[:before] + tail[after:new_end] + asked_after.rstrip(" ，,。.;；:：-—…") + more
            return head[:before] + tail[after:]
    return None


def as_meant(text: str) -> str:
    """``text`` with each value taken back replaced by the one given after it, the rest of the request kept. In a
    numbered list a correction may be an item of its own ("1. 地址改成…100号 2. 不对，是200号 3. 通知关掉"):
    the list's numbers are then read as boundaries."""
    if (listed := slots.without_list_numbers(text)) != text and _MARKER.search(listed):
        text = listed
    if instead := _request_instead(text):
        return instead
    for _ in range(3):  # "A, no wait, B, sorry I mean C"
        corrected = _corrected_once(text)
        if corrected is None:
            break
        text = corrected
    return text


# The words of a request of its own, beyond the values it names ("refund 0880 instead", "改成短信联系吧").
_SAYS_WHAT_TO_DO = re.compile(
    r"退|查|物流|到哪|改|换|关|开|静音|通知|联系|地址|列|(?i:\b(?:refund|money\s+back|track|where|status|change|switch|"
    r"mute|unmute|turn|send|ship|list|show|contact|text|email|call)\b)"
)


def _request_instead(text: str) -> str | None:
    """A request taken back for another of another kind ("Can u cancel 0923? actually wait no, refund 0880
    instead", "帮我查一下0816状态，算了，还是帮我查0817物流吧"): the other one, when it names what it is about; else
    ``None`` (a value taken back within one request is corrected by ``_corrected_once``)."""
    from .nlu import Intent, classify  # nlu reads values with slots, as this module does

    markers = [m for m in _MARKER.finditer(text) if m.group().strip()]
    if not markers:
        return None
    head, tail = text[: markers[-1].start()], text[markers[-1].end() :]
    tail = re.sub(r"^[\s,，。.:：]*(?:还是|(?i:instead\s*,?))?\s*", "", tail)
    if not tail.strip() or _ADDS_BEFORE.search(tail[:12]) or _ADDS_AFTER.search(tail):
        return None  # "…, wait, also ORD-…": one more, not instead
    if not _SAYS_WHAT_TO_DO.search(tail):
        return None  # "…, sorry I mean ORD-2025-0932", "不对，是0902": a value, corrected in the same request
    asked = {Intent.REFUND, Intent.TRACK, Intent.STATUS, Intent.EXPEDITE, Intent.SET_NOTIFICATION, Intent.SET_CHANNEL}
    asked |= {Intent.SET_ADDRESS, Intent.LIST_ORDERS}
    then = classify(tail).intent
    names_its_own = any(value_at(tail) is not None for value_at in _KINDS) or bool(slots.order_tails(tail))
    if then not in asked or not (names_its_own or then is Intent.LIST_ORDERS):
        return None
    head = re.sub(r"(?i)[\s,，。.]*(?:actually|oh|um+|hmm+|well|哦|噢|呃)?[\s,，。.]*$", "", head)
    first = classify(head).intent
    about_an_order = first is Intent.OTHER and bool(slots.order_numbers(head) or slots.order_tails(head))
    if first is then or not (about_an_order or first in asked | {Intent.HUMAN, Intent.POLICY}):
        return None  # "Can u cancel 0923? …": a request about an order, in words not read, is taken back too
    return tail
