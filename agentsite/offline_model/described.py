"""An order the customer describes instead of numbering ("the kettle", "我买电水壶的那个订单"),
found among every place the request puts an order number beside words about it. Words count by how few
orders share them, so "order" weighs nothing and "kettle" decides. See docs/offline-model.md.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from . import facts, nlu, slots, speech
from .conversation import Conversation, result_data

# Words that say "an order" or ask about one, never what is in it.
_GENERIC = frozenset(
    re.findall(
        r"\S+",
        "order orders ordered number numbers what which was were the for and that this with from did have has "
        "bought buy purchased purchase got get where when how status parcel package delivery shipping shipment "
        "arrive arrived tracking track refund return again please thanks can you could tell remind about "
        "mine my your its it's is are done yet still any all list already just now there been does will",
    )
)
_GENERIC_HAN = frozenset(
    re.findall(
        r"\S+",
        "订单 单号 号是 是多 多少 那个 哪个 这个 个订 我买 买的 的那 的是 的订 是什 什么 我的 快递 "
        "包裹 物流 退款 发货 到哪 哪了 现在 时候 请问 帮我 一下 查一 订的 下单 号码",
    )
)
_HAN_RUN = re.compile(speech.HAN.pattern + "+")
_ORDER = re.compile(r"(?i)ORD[-_ ]?\d{4}[-_ ]?\d+")
_RARE = 2  # a deciding word belongs to at most this many orders


def terms(text: str) -> set[str]:
    """English words (plural folded) and Chinese character pairs, without those that only say "order"."""
    text = _ORDER.sub(" ", text)
    words = {w.lower() for w in re.findall(r"[A-Za-z]{3,}", text)} - _GENERIC  # before folding: "status", "does"
    words = {w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words}
    pairs = {run[i : i + 2] for run in _HAN_RUN.findall(text) for i in range(len(run) - 1)}
    return (words - _GENERIC) | (pairs - _GENERIC_HAN)


def _from_result(data: Any, found: list[tuple[str, str]]) -> None:
    if isinstance(data, list):
        for item in data:
            _from_result(item, found)
        return
    if not isinstance(data, dict):
        return
    number = data.get("order_number")
    items = data.get("items")
    if isinstance(number, str) and isinstance(items, list):
        names = [str(i.get("name")) for i in items if isinstance(i, dict) and i.get("name")]
        found.append((number, " ".join(names)))
    for value in data.values():
        if isinstance(value, (dict, list)):
            _from_result(value, found)


def candidates(conv: Conversation) -> list[tuple[str, str]]:
    """``(order number, words about it)`` from everything the request carries before the latest message."""
    found: list[tuple[str, str]] = []
    for label, value in conv.said:
        found += [(number, value) for number in slots.order_numbers(label)]
    for turn in conv.turns[: max(conv.latest_user_index, 0)]:
        if turn.role == "tool":
            _from_result(result_data(turn.text), found)
            continue
        for sentence in facts.sentences(turn.text):
            numbers = slots.order_numbers(sentence)
            if len(numbers) == 1:  # a sentence naming two orders says nothing about either alone
                found.append((numbers[0], sentence))
    for memory in conv.memories:
        numbers = slots.order_numbers(memory.content + " " + memory.value)
        if len(numbers) == 1:
            found.append((numbers[0], memory.content))
    return found


# A thing set aside beside the one meant: "the backpack, not the bottles", "instead of the tent", "键盘，不是耳机".
_REFUSED_THING = re.compile(
    r"(?i)\b(?:not|rather\s+than|instead\s+of)\s+(?:the|my|that|those|these|this)\s+[a-z][a-z\-]*"
    r"(?:\s+(?!and\b|but\b|or\b|please\b|pls\b)[a-z][a-z\-]*){0,2}"
    r"|(?:而)?不是(?:那个|这个|那双|那副|那件)?[\u4e00-\u9fff]{2,6}?(?:那单|那个)?(?=[，。,.!?！？\s]|$)"
)


def without_things_refused(text: str) -> str:
    """``text`` without the things it sets aside ("I meant the backpack, not the bottles" → "I meant the backpack,")."""
    return _REFUSED_THING.sub(" ", text)


def spelled_alike(typed: str, word: str) -> bool:
    """Whether ``typed`` is ``word`` with one slip (a letter missed, added, changed or two swapped; two slips in
    words of eight letters or more): "bakcpack" and "backpak" are "backpack". Words under five letters must match."""
    if typed == word:
        return True
    if min(len(typed), len(word)) < 5 or abs(len(typed) - len(word)) > 2:
        return False
    allowed = 2 if len(word) >= 8 else 1
    before, row = None, list(range(len(word) + 1))
    for i, a in enumerate(typed, 1):
        current = [i]
        for j, b in enumerate(word, 1):
            cost = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + (a != b))
            if before is not None and i > 1 and j > 1 and a == word[j - 2] and typed[i - 2] == b:
                cost = min(cost, before[j - 2] + 1)
            current.append(cost)
        before, row = row, current
    return row[-1] <= allowed


def _shared_terms(about: set[str], asked: set[str], known: set[str]) -> set[str]:
    """The words of ``about`` the question asks with; English ones also when typed with a slip, if the word typed
    is none of the ``known`` words (a "bottle" asked never matches a "battle")."""
    slipped = [a for a in asked - known if a.isascii()]
    return {w for w in about if w in asked or (w.isascii() and any(spelled_alike(a, w) for a in slipped))}


def described_order(conv: Conversation, text: str) -> str | None:
    """The one order the question's own words describe, if exactly one fits best."""
    asked = terms(without_things_refused(text))
    if not asked:
        return None
    words_of: dict[str, set[str]] = defaultdict(set)
    told = [(number, terms(about)) for number, about in candidates(conv)]
    known = set().union(*(words for _, words in told))
    for number, words in told:
        words_of[number] |= _shared_terms(words, asked, known)
    orders_with: dict[str, int] = defaultdict(int)
    for words in words_of.values():
        for word in words:
            orders_with[word] += 1
    scored = sorted(
        ((sum(1 / orders_with[w] for w in words), number) for number, words in words_of.items() if words),
        reverse=True,
    )
    if not scored:
        return None
    best, number = scored[0]
    if len(scored) > 1 and scored[1][0] >= best:
        return None
    if not any(orders_with[w] <= _RARE for w in words_of[number]):
        return None
    thing = terms(thing_named(text))
    told_of = set().union(*(words for n, words in told if n == number))
    if thing and not _shared_terms(told_of, thing, known):  # "is my grinder still processing?": never the
        return None  # headphones order because it is processing too
    return number


# How an order stands, in the words a customer picks it out by ("已经发货的", "还在处理的", "that has shipped").
_STATE_ZH = (
    r"(?:已经|还|都|正在)?(?:运输中|在运输|在路上|已发货|未寄出|还没寄出|发货了|发了货|已发出|发出了|还没发货|还没发|没发货|未发货|待发货|"
    r"已签收|签收了|已送达|送到了|到了|还没到|没到|在处理|处理中|已付款|付了款|发货|发出)"
)
_STATE_EN = (
    r"(?:in\s+transit|on\s+(?:its|the)\s+way|(?:been\s+)?shipped|(?:been\s+)?delivered|arrived|processing|"
    r"not\s+(?:yet\s+)?(?:shipped|delivered|arrived)(?:\s+yet)?|(?:hasn'?t|haven'?t|has\s+not|have\s+not)\s+(?:yet\s+)?(?:been\s+)?"
    r"(?:shipped|delivered|arrived)(?:\s+yet)?)"
)
# An order picked out by how it stands, with no number: "那个运输中的", "还没发货的那个", "the one in transit", "the
# shipped one". The customer's list says which (``chat._the_other_order``).
PICKED_BY_STATE = re.compile(
    rf"{_STATE_ZH}的(?:那个|那单|那笔|那件|那张)|(?:未|没|还没)(?:寄出|发货|发出|寄)(?:那张|那单|那个|那笔)|(?:那个|那单|那笔|那张|订单)[^，。？?]{{0,2}}?{_STATE_ZH}的|"
    r"(?i:\b(?:the|my)\s+(?:one|order|parcel|package)\s+(?:that'?s\s+|that\s+is\s+|which\s+is\s+|that\s+has\s+|"
    rf"which\s+has\s+|that\s+|which\s+)?(?:still\s+|already\s+)?{_STATE_EN}\b|"
    r"\bthe\s+(?:shipped|delivered|processing|undelivered|unshipped|pending)\s+(?:one|order)\b)"
)


def picked_by_state(text: str) -> bool:
    """Whether ``text`` picks an order out only by how it stands (no number, nor the end of one)."""
    picked = PICKED_BY_STATE.search(text) or PICKED_BY_STATE.search(nlu.as_mandarin(text))  # "未寄出嗰張單"
    return bool(picked) and not slots.order_numbers(text) and not slots.order_tails(text)


# Something bought, named as what the request is about: "the water bottles", "my coffee grinder order",
# "键盘有问题", "绿茶那单发货了没", "上个月买的键盘…". The orders holding an item so named then say which order.
_NAMED_THING_EN = re.compile(r"(?i)(?=\b(?:the|my|that|this|those|these|for|of)\s+[a-z])")  # each, overlapping
_NOT_A_THING_EN = frozenset(
    re.findall(
        r"\S+",
        "order orders one ones parcel parcels package packages refund refunds money item items stuff thing things "
        "delivery deliveries shipment shipments address account email phone notification notifications status "
        "last recent latest first second third shipped delivered processing cancelled same other new previous "
        "earlier whole full total amount price tracking number side way record records system chat conversation "
        "website app team staff colleague policy time week weeks day days month months year money back card "
        "store credit payment it them me you us rest lot return returns purchase purchases box "
        "my your our their his her the a an that this these those any all some going to for on in at of is are was "
        "be yet still now please and or but with from i we what where when how why which who get got have has had "
        "do does did can could would will not no just so too very really about most least oldest newest biggest "
        "cheapest ending ends digits number numbers other another big small right correct again also btw though "
        "lol pls plz asap thanks thank ok okay arrived came broken damaged arrive arrives arriving come comes coming "
        "reach reaches ship ships shipping deliver delivers work works working fit fits here there today tomorrow "
        "been being approve approves cost costs costed default old msg msgs message messages question questions reply "
        "replies answer answers request requests mail hasn hasnt haven havent isn isnt wasn wasnt doesn doesnt didn "
        "didnt won wont cant aren arent contact channel setting settings unshipped undelivered pending paid never ever "
        "already finally actually showed turned went agent agents rep reps representative manager supervisor "
        "employee support service down up out off over away fact facts note notes confirmed memory ord doing getting "
        "cheaper dearer pricier expensive less more priciest dearest costliest latest earliest largest smallest "
        "refundable returnable eligible if unless once since because while then than they",
    )
)
# A count before the thing's name ("the two desk lamps", "my three water bottles"): not part of the name.
_HOW_MANY_EN = frozenset(["two", "three", "four", "five", "six", "both", "pair"])
# After the thing's first word, a participle says what happened to it: "the tent approved", "my lamp refunded".
_HAPPENED_TO_IT = re.compile(r"(?i)[a-z]{3,}ed")
_NAMED_THING_ZH = re.compile(
    r"^(?:(?:你好|您好|哈喽|嗨|在吗|喂|(?i:hi|hello|hey))[呀啊哈]?[～~，,！!。…\s]*)?(?:那么|还有|另外|顺便|顺带|对了[，,\s]*|那(?![个双副件盒条款张瓶套部盏架对只本把支]))?(?:请|麻烦|帮我|给我|你|我想|我要|想|要)?(?:帮我|给我)?(?:问下|问一下|请问|(?:问问|查查|看看|查|看|确认|核实|核对|了解)(?:一)?下?)?"
    r"(?:申请|办理?|退(?:掉|了|款)?|取消)?(?:把|将|给|为|替)?"  # "我想退瑜伽垫那单", "我想给键盘那单退款"
    r"(?:我说的是|我是说|应该是|就是|是)?"  # a thing given again: "啊不对，是瑜伽垫那单"
    r"(?:我买的|我的|我|(?:上个?月|上周|之前|上次|前几天|昨天)买的)?(?:(?:[那这一两二三四五六七八九十]|\d{1,2})(?:个|双|副|件|台|盒|条|款|张|瓶|套|部|盏|架|对|只|本|把|支|包))?"
    # "那个取消了的手机壳钱退了没", "那个已经签收的键盘"
    r"(?:取消了?的|退了?的|(?:还)?没发货的|(?:已经)?(?:发货|签收|收到|送到)了?的|到了的)?"
    r"([\u4e00-\u9fff]{2,9}?)"
    r"(?:那一?单|那一?个|这一?单|的订单|的那单|订单|那一?笔|[那这]?[两几]单|[那这]?[两几]个订单|去到|(?:会|将)?(?:寄|送|发)(?:到|往)|(?:都|也)(?:帮我|给我|一起)?(?:退|申请退)|退掉|有问题|用了|有个|有点|不灵|坏了|不想要|不要了|到哪|在哪|到了|发货|签收|喝着|用着|怎么|啥时候|什么时候|"
    r"几时|多久|下单|的?钱|如果|要是|假如|万一|(?:[一两二三四五六七八九十]|\d{1,2})(?:个|双|件|台|盒|条|张|瓶|套|部|盏|只|本|把|支|包|杯)|"
    r"想退|能退|要退|(?:还)?可(?:不可)?以(?:申请)?退|还能(?:不能)?退|的?退款|的?退货|退了|呢|买的|为什么|为啥|咋|还没|哪个|哪一个|"
    r"\s*(?=[A-Za-z]{2}))"  # "我的耳机 when …"
)
NOT_A_THING_ZH = re.compile(
    r"[我你他她们的了吗呢吧啊帮看查下到哪订钱款退这那个次月周买前近早还没未已不都全所有些啥几最第贵半]|^单|发货|发的|单号|订单|那单|这单|"
    r"快递|包裹|东西|上次|之前|最新|尾号|什么|物流|运单|快件|进度|状态|情况|信息|发票|地址|通知|售后|客服|账号|账户|邮箱|"
    r"电话|手机号|生日|名字|联系|政策|运费|价格|优惠|活动|会员|积分|今天|昨天|前天|申请|提交|办理|要求|取消|静音|人工|"
    r"总共|一共|合计|总计|累计|加起来|一起|然后|之后|以后|今后|将来|下次|接下来|其他|其它|别的|刚才|刚刚|^就|^再|^又|"
    # a price ("一百七十八块的那单", "一千二百多的"), not a thing
    r"[零〇一二两三四五六七八九十百千万多][块元蚊]|[零〇一二两三四五六七八九十百千万]多"
)


def thing_named(text: str) -> str:
    """What the request names as bought rather than an order ("the water bottles" → "water bottles", "键盘那单"
    → "键盘"), or "": never one it sets aside ("not the bottles but the backpack" → "backpack")."""
    text = without_things_refused(text)
    for m in _NAMED_THING_EN.finditer(text):
        words: list[str] = []
        clause = re.split(r"[,.;:!?，。；！？]", text[m.start() :])[0]  # "the backpack, she said": the backpack
        for word in re.findall(r"[A-Za-z][A-Za-z\-]*", clause)[1:5]:  # after the determiner
            if not words and word.lower() in _HOW_MANY_EN:
                continue  # "the two desk lamps": the lamps
            if word.lower() in _NOT_A_THING_EN or word.lower().rstrip("s") in _NOT_A_THING_EN:
                break  # "the water bottles order" ends at "order"; "the item arrived" names nothing
            if word.lower() in _PLACES_EN:
                words = []  # "road is my old place": a place lived at, no thing bought
                break
            if words and _HAPPENED_TO_IT.fullmatch(word):
                break  # "my insulated bottle", but "the tent approved"
            words.append(word)
        if words:
            return " ".join(words)
    if (topic := _TOPIC_EN.match(text)) and not any(
        w.lower() in _NOT_A_THING_EN or w.lower().rstrip("s") in _NOT_A_THING_EN or w.lower() in _NO_TOPIC_EN
        for w in topic.group(1).split()
    ):
        return topic.group(1)  # "headphones: refund 3/4 of it"
    mixed = _ENGLISH_THING_IN_ZH.search(text)  # "那个keyboard已经收到了", "keyboard那单": an English name
    named = (mixed[1] or mixed[2]) if mixed else ""
    if named and not any(
        w.lower().rstrip("s") in _NOT_A_THING_EN or w.lower() in _NOT_A_THING_EN for w in named.split()
    ):
        return named
    zh = (
        _NAMED_THING_ZH.match(text.strip(" ，,。.:：;；…"))
        or _named_in_a_later_clause(text)
        or _GIVEN_LAST_ZH.search(text)
        or _AFTER_THE_VERB_ZH.match(text.strip())
        or _REFUND_OF_A_THING_ZH.search(text)
    )
    if zh and not NOT_A_THING_ZH.search(thing := _AMOUNT_AFTER.sub("", zh.group(1)) or zh.group(1)):
        return thing  # "退耳机二百九": the headphones, and an amount
    one = _ONE_CHARACTER_THING_ZH.search(text.strip())
    return one.group(1) if one and not NOT_A_THING_ZH.search(one.group(1)) else ""


# A thing bought given first as the topic, without "the" or "my": "headphones: refund 3/4 of it", "tent - where is
# it?". Never a word that heads a message as its kind ("urgent:", "quick question -").
_TOPIC_EN = re.compile(r"^\s*([A-Za-z][A-Za-z-]*(?:\s[A-Za-z][A-Za-z-]*){0,2})\s*(?::|\s[-\u2013\u2014]\s)")
_NO_TOPIC_EN = frozenset(
    re.findall(
        r"\S+",
        "urgent quick important update note fyi ps re hi hello hey yo dear also ok okay so well help complaint "
        "issue problem request reminder correction btw edit actually sorry please pls attention warning subject "
        "topic question follow-up followup again good morning evening afternoon thanks",
    )
)


# Where a clause after the first begins: "我有什么在等确认吗？顺便跑步鞋到哪了" names the shoes in its second.
_LATER_CLAUSE_ZH = re.compile(r"[，,。.？?！!；;…]+\s*|(?<=[\u4e00-\u9fff])(?=顺便|另外|还有|对了)")


def _named_in_a_later_clause(text: str) -> re.Match[str] | None:
    """The first thing a clause after the first names as its subject, for a message whose first clause names
    none (a question of its own, a greeting, thanks)."""
    for cut in _LATER_CLAUSE_ZH.finditer(text):
        clause = text[cut.end() :].strip(" ，,。.:：;；…")
        if clause and (found := _NAMED_THING_ZH.match(clause)) and not NOT_A_THING_ZH.search(found.group(1)):
            return found
    return None


# An amount in numerals said straight after the thing ("耳机二百九"): no part of its name.
_AMOUNT_AFTER = re.compile(
    r"(?<=[\u4e00-\u9fff]{2})[零〇一二两三四五六七八九十百千万]*[百千万][零〇一二两三四五六七八九十百千万]*$"
)
# A thing named by one character, after a word that makes it one ("我的茶到了吗", "個茶點呀？" → "茶"): its order is
# the one holding an item so named ("绿茶"). Never the generic words for goods, parcels or orders.
_ONE_CHARACTER_THING_ZH = re.compile(
    r"(?:^|[，,。\s])(?:我的|我?[那这]?(?:个|盏|部|台|双|件|只|本|条|把|支|套|架|对|张))([\u4e00-\u9fff])(?<![货件包单款钱事号要想是有会能在退买])"
    r"(?:那单|的订单|到|怎么|在哪|呢|发货|还没|退|什么时候|啥时候|几时|有问题|坏了)"
)


_ENGLISH_THING_IN_ZH = re.compile(
    r"(?:那个|这个|我那个|我的|那些|这些)\s*([A-Za-z][A-Za-z\-]{2,}(?:\s+[A-Za-z][A-Za-z\-]{2,})?)"
    r"|(?<![A-Za-z])([A-Za-z][A-Za-z\-]{2,}(?:\s+[A-Za-z][A-Za-z\-]{2,})?)\s*(?:那单|那个|这单|的订单|订单|那笔)"
)


# Of two orders in sight, one picked by its total: "贵的那个帮我退了", "refund the cheaper one".
def _compared_as(zh: str, en: str) -> re.Pattern[str]:
    return re.compile(
        rf"(?<![最第二三四]){zh}(?:的|点的|些的)(?:那个|那单|那笔|一单|一个)|(?i:\b(?:{en})\s+(?:one|order)\b)"
    )


CHEAPER = _compared_as("便宜", r"cheaper|less\s+expensive")
DEARER = _compared_as("贵", r"dearer|pricier|more\s+expensive")
# An order picked by its total ("最多几天能到" asks a time, so only words of price).
CHEAPEST = re.compile(
    r"最便宜|第[二三四]便宜|最平(?![安稳静常时])|金额最[小少低]|(?i:\bcheapest\b|\bleast\s+expensive\b)"
)
DEAREST = re.compile(
    r"最贵|第[二三四]贵|金额最[大多高]|(?i:\bmost\s+expensive\b|\bpriciest\b|\bdearest\b|\bcostliest\b)"
)


def ranked_by(text: str) -> str:
    """How a request picks its order in a ranking, if it does ("my latest order": "newest", "最贵的那单":
    "dearest"), else ""."""
    for name, pattern in (
        ("oldest", nlu.OLDEST_ORDER),
        ("newest", nlu.MOST_RECENT_ORDER),
        ("cheapest", CHEAPEST),
        ("dearest", DEAREST),
    ):
        if pattern.search(text):
            return name
    return ""


# A thing that ends a request to refund or cancel it: "我要退瑜伽垫", "退掉台灯".
_AFTER_THE_VERB_ZH = re.compile(
    r"^(?:我想|我要|想|要|请|麻烦)?(?:帮我|给我)?(?:退掉?|取消)(?:我的|那个|这个)?([\u4e00-\u9fff]{2,6})\s*[。.!！]*$"
)


# A thing said last, after "是": "不是这个，我要退的是耳机", "不对，是耳机".
# A thing whose refund is spoken of, after whose it is ("上次你们答应给我的瑜伽垫退款"): never the order of last time.
_REFUND_OF_A_THING_ZH = re.compile(r"(?:给我的|我的|我买的)([\u4e00-\u9fff]{2,6}?)(?:那单|那个|的)?(?:退款|退货)")
_GIVEN_LAST_ZH = re.compile(
    r"(?:^|[，,。\s]|的|其实|应该|而)是(?:我的|那个)?([\u4e00-\u9fff]{2,6}?)(?:那单|那个|这单|的?订单)?\s*[。.!！]*$"
)


# Where a parcel may go, not what is in it: "change my address to my office: …".
_PLACES_EN = frozenset(
    re.findall(
        r"\S+",
        "office work home house flat apartment place parents mom mum dad friend friends neighbour neighbor building "
        "company school workplace studio room unit street road city town default current usual primary main "
        "permanent billing delivery shipping",
    )
)
_ADDRESS_OF_A_THING_ZH = re.compile(
    r"(?:把|将)?(?:我买的|我的|那个|这个)?([\u4e00-\u9fffA-Za-z0-9]{2,8}?)(?:那单|这单|订单)?的(?:收货|配送|送货|快递|寄送)?地址"
)
_PLACES_ZH = re.compile(r"公司|家|单位|学校|宿舍|默认|收货|新|老|原|旧|现在|父母|朋友")


def thing_sent(text: str) -> str:
    """What a change of address names as bought ("the address of my coffee grinder", "把蓝牙耳机的地址改成…"): its
    order is the one to send elsewhere. Never a place ("my office", "公司的地址")."""
    thing = thing_named(text)
    # "my default (shipping) address": a kind of address, not a thing bought
    kind_of_address = thing and re.search(rf"(?i)\b{re.escape(thing)}\s+(?:[a-z]+\s+){{0,2}}address", text)
    if thing and not kind_of_address and thing.split()[0].lower() not in _PLACES_EN:
        return thing
    m = _ADDRESS_OF_A_THING_ZH.search(text)
    if m and not NOT_A_THING_ZH.search(m.group(1)) and not _PLACES_ZH.search(m.group(1)):
        return m.group(1)
    return ""


# What joins two things bought in one request: "the desk lamp and the coffee grinder", "耳机和键盘".
_AND_EN = re.compile(r"(?i)\s*,?\s*(?:and|&|plus|as\s+well\s+as)\s+")
_AND_ZH = re.compile(r"[和跟与及、]|还有|以及")
_STARTS_A_REQUEST = re.compile(
    r"(?i)(?:tell|show|give|check|track|refund|return|cancel|change|update|send|let|make|switch|mute|turn|set|"
    r"what|where|when|why|how|which|who|is|are|was|were|can|could|would|will|do|does|did|please|pls|also|then|"
    r"i|i'm|im|it|its|it's|they|you|we|let's)\b"
)


def things_named(text: str) -> list[str]:
    """Each thing bought a request names when it joins several ("the desk lamp and the coffee grinder" → ["desk
    lamp", "coffee grinder"], "耳机和键盘到哪了" → ["耳机", "键盘"]); one or none as ``thing_named`` finds."""
    first = thing_named(text)
    if not first:
        return []
    if _AND_ZH.search(first) and not re.search(r"[A-Za-z]", first):
        return [part for part in _AND_ZH.split(first) if len(part) >= 2] or [first]
    found, rest = [first], text[text.lower().find(first.lower()) + len(first) :]
    while (joined := _AND_EN.match(rest)) and len(found) < 4:
        part = rest[joined.end() :]
        bare = not _NAMED_THING_EN.match(part)  # "and coffee grinder": a thing, unless it starts a request
        if bare and _STARTS_A_REQUEST.match(part):
            break
        thing = thing_named(f"the {part}") if bare else thing_named(part)
        if not thing or thing in found:
            break
        found.append(thing)
        rest = part[part.lower().find(thing.lower()) + len(thing) :]
    return found


def things_compared(text: str) -> list[str]:
    """The things a comparison names, "or" and "还是" joining them as "and" does ("which is cheaper, the backpack or
    the tent?")."""
    return things_named(re.sub(r"还是", "和", re.sub(r"(?i)\s+or\s+", " and ", text)))


def names_a_thing(text: str) -> bool:
    """Whether the request names something bought rather than an order ("the backpack", "键盘那单")."""
    return bool(thing_named(text))
