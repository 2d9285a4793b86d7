"""Distinct memory texts for the big-customer stage (``benchmarks/big_customers.py``), with a question each.
Every text is different, so that a graph index is measured on the data it would meet. How to run it and what
it measures: docs/bench.md ("The scripts").
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from chat.evaluation import generator as gen

LOCOMO = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "locomo-dev.json"

TOPICS = ["orders", "delivery", "refunds", "purchasing", "billing", "preferences", "people", "life"]


@dataclass(frozen=True)
class StageText:
    text: str
    topic: str
    question: str


_PRODUCTS = [
    ("laptop stand", "笔记本支架"),
    ("office chair", "办公椅"),
    ("standing desk", "升降桌"),
    ("monitor", "显示器"),
    ("headset", "耳麦"),
    ("webcam", "摄像头"),
    ("printer toner", "打印机墨盒"),
    ("coffee beans", "咖啡豆"),
    ("water filter", "净水滤芯"),
    ("winter jacket", "冬季外套"),
    ("running shoes", "跑鞋"),
    ("backpack", "双肩包"),
    ("desk lamp", "台灯"),
    ("keyboard", "键盘"),
    ("USB-C dock", "扩展坞"),
    ("notebook set", "笔记本套装"),
    ("thermos", "保温杯"),
    ("yoga mat", "瑜伽垫"),
    ("umbrella", "雨伞"),
    ("phone case", "手机壳"),
    ("tea set", "茶具"),
    ("blender", "破壁机"),
    ("rice cooker", "电饭煲"),
    ("air purifier", "空气净化器"),
    ("first-aid kit", "急救包"),
    ("safety vest", "反光背心"),
    ("name badges", "工牌"),
    ("whiteboard", "白板"),
]
_COLOURS = [
    ("black", "黑色"),
    ("navy", "藏青色"),
    ("grey", "灰色"),
    ("white", "白色"),
    ("red", "红色"),
    ("olive", "橄榄绿"),
    ("beige", "米色"),
    ("blue", "蓝色"),
]
_DEPARTMENTS = [
    ("finance", "财务部"),
    ("sales", "销售部"),
    ("engineering", "研发部"),
    ("warehouse", "仓储部"),
    ("marketing", "市场部"),
    ("front desk", "前台"),
    ("legal", "法务部"),
    ("HR", "人事部"),
    ("design", "设计部"),
    ("support", "客服部"),
]
_ISSUES = [
    ("arrived damaged", "到货时有破损"),
    ("was missing a part", "少了一个配件"),
    ("came in the wrong size", "尺码发错了"),
    ("arrived three days late", "晚到了三天"),
    ("was never delivered", "一直没有送到"),
    ("was the wrong colour", "颜色发错了"),
    ("stopped working after a week", "用了一周就坏了"),
]
_STATUSES = [("processing", "处理中"), ("shipped", "已发货"), ("delivered", "已签收"), ("on hold", "暂停处理")]
_WEEKDAYS = [("Monday", "周一"), ("Tuesday", "周二"), ("Wednesday", "周三"), ("Thursday", "周四"), ("Friday", "周五")]
_SIZES = ["XS", "S", "M", "L", "XL", "XXL", "36", "38", "40", "42", "44"]
_LIKES = [
    ("eco-friendly packaging", "环保包装"),
    ("no plastic bags", "不要塑料袋"),
    ("gift wrapping", "礼品包装"),
    ("paper invoices", "纸质发票"),
    ("one combined shipment", "合并发货"),
    ("morning deliveries", "上午送货"),
    ("a call before delivery", "送货前先打电话"),
    ("leaving parcels at reception", "包裹放前台"),
]


def _people(rng: random.Random, zh: bool) -> str:
    if zh:
        return rng.choice(gen.SURNAMES) + rng.choice(gen.GIVEN) + rng.choice(["", *gen.GIVEN])
    return f"{rng.choice(gen.FIRST)} {rng.choice(gen.LAST)}"


def _grammar(rng: random.Random) -> dict[str, list[Callable[[bool], tuple[str, str]]]]:
    """Per topic, forms of ``(text, question)`` in either language; each call draws new values."""
    r = rng

    def order() -> str:
        return f"ORD-{r.choice([2023, 2024, 2025, 2026])}-{r.randrange(100000):05d}"

    def money() -> str:
        return f"{r.randrange(20, 20000)}.{r.choice(['00', '50', '90'])}"

    def item(zh: bool) -> str:
        return r.choice(_PRODUCTS)[zh]

    def city(zh: bool) -> str:
        return r.choice(gen.CITIES_ZH if zh else gen.CITIES_EN)

    def carrier(zh: bool) -> str:
        return r.choice(list(gen.CARRIERS.values()))[0 if zh else 1]

    def date(zh: bool) -> str:
        month, day = r.randint(1, 12), r.randint(1, 28)
        return f"{month}月{day}日" if zh else f"{gen.MONTHS_EN[month - 1]} {day}"

    def dept(zh: bool) -> str:
        return r.choice(_DEPARTMENTS)[zh]

    def o1(zh: bool) -> tuple[str, str]:
        n, p, q = order(), item(zh), r.randrange(1, 60)
        if zh:
            return f"订单{n}：{q}件{r.choice(_COLOURS)[1]}{p}，{r.choice(_STATUSES)[1]}", f"订单{n}是什么东西？"
        return f"Order {n}: {q} × {r.choice(_COLOURS)[0]} {p}, {r.choice(_STATUSES)[0]}", f"What was in order {n}?"

    def o2(zh: bool) -> tuple[str, str]:
        n, p = order(), item(zh)
        if zh:
            return f"{date(True)}下单的{p}（{n}）付了{money()}元", f"{p}那一单花了多少钱？"
        return f"Paid {money()} yuan for the {p} ordered on {date(False)} ({n})", f"How much was the {p} order?"

    def o3(zh: bool) -> tuple[str, str]:
        p, q = item(zh), r.randrange(2, 300)
        if zh:
            return f"每个季度固定订{q}个{p}", f"他们多久订一次{p}？"
        return f"Reorders {q} {p}s every quarter", f"How often do they reorder {p}s?"

    def d1(zh: bool) -> tuple[str, str]:
        n, c = order(), carrier(zh)
        if zh:
            return f"{n}由{c}承运，运单号{r.choice('SJYZ')}{r.randrange(10**9, 10**10)}", f"{n}是哪家快递送的？"
        return f"{n} shipped with {c}, tracking {r.choice('SJYZ')}{r.randrange(10**9, 10**10)}", f"Who carries {n}?"

    def d2(zh: bool) -> tuple[str, str]:
        where, who = city(zh), _people(r, zh)
        if zh:
            return f"送到{where}{dept(True)}的包裹由{who}签收", f"{where}的包裹谁来签收？"
        return f"Parcels for the {dept(False)} office in {where} are signed for by {who}", f"Who signs in {where}?"

    def d3(zh: bool) -> tuple[str, str]:
        day, where = r.choice(_WEEKDAYS), city(zh)
        if zh:
            return f"{where}仓库{day[1]}不收货", f"{where}那边哪天不能送货？"
        return f"The {where} warehouse takes no deliveries on {day[0]}s", f"When can't we deliver in {where}?"

    def f1(zh: bool) -> tuple[str, str]:
        n, p, issue = order(), item(zh), r.choice(_ISSUES)[zh]
        if zh:
            return f"{n}的{p}{issue}，退款{money()}元", f"{n}为什么退款？"
        return f"The {p} in {n} {issue}; refunded {money()} yuan", f"Why was {n} refunded?"

    def f2(zh: bool) -> tuple[str, str]:
        p, issue = item(zh), r.choice(_ISSUES)[zh]
        if zh:
            return f"{date(True)}换货：{p}{issue}，新的已寄出", f"{p}换货了吗？"
        return f"Exchanged a {p} on {date(False)} because it {issue}", f"Did we exchange the {p}?"

    def b1(zh: bool) -> tuple[str, str]:
        po, d, p = f"PO-{r.randrange(10**5, 10**6)}", dept(zh), item(zh)
        if zh:
            return f"采购单{po}：给{d}买{r.randrange(2, 80)}个{p}", f"{po}是给哪个部门的？"
        return f"Purchase order {po}: {r.randrange(2, 80)} {p}s for {d}", f"Which team is {po} for?"

    def b2(zh: bool) -> tuple[str, str]:
        who, d, size = _people(r, zh), dept(zh), r.choice(_SIZES)
        if zh:
            return f"{d}的{who}衣服穿{size}码", f"{who}穿什么尺码？"
        return f"{who} from {d} wears size {size}", f"What size does {who} wear?"

    def b3(zh: bool) -> tuple[str, str]:
        who, d, limit = _people(r, zh), dept(zh), r.randrange(5, 200) * 100
        if zh:
            return f"{d}的采购审批人是{who}，单笔上限{limit}元", f"{d}谁审批采购？"
        return f"{who} approves {d} purchases up to {limit} yuan", f"Who approves purchases for {d}?"

    def i1(zh: bool) -> tuple[str, str]:
        inv = f"INV-{r.randrange(10**5, 10**6)}"
        if zh:
            return f"发票{inv}金额{money()}元，{r.choice(['已付', '未付', '逾期'])}", f"{inv}付了没有？"
        return f"Invoice {inv} for {money()} yuan is {r.choice(['paid', 'unpaid', 'overdue'])}", f"Is {inv} paid?"

    def i2(zh: bool) -> tuple[str, str]:
        days, d = r.choice([15, 30, 45, 60]), dept(zh)
        if zh:
            return f"{d}的发票按{days}天账期结算", f"{d}的账期多长？"
        return f"Invoices for {d} are paid on {days}-day terms", f"What are {d}'s payment terms?"

    def p1(zh: bool) -> tuple[str, str]:
        like, where = r.choice(_LIKES)[zh], city(zh)
        if zh:
            return f"发往{where}的订单希望{like}", f"{where}的订单有什么要求？"
        return f"For orders to {where} they ask for {like}", f"What do they want for {where} orders?"

    def p2(zh: bool) -> tuple[str, str]:
        name = r.choice(list(gen.CHANNELS.values()))[0 if zh else 1]
        who = _people(r, zh)
        if zh:
            return f"{who}希望通过{name}联系，{r.choice(['上午', '下午', '晚上'])}最好", f"怎么联系{who}？"
        return f"{who} prefers {name}, ideally in the {r.choice(['morning', 'afternoon', 'evening'])}", (
            f"How should we reach {who}?"
        )

    def h1(zh: bool) -> tuple[str, str]:
        who = _people(r, zh)
        if zh:
            return f"{who}的生日是{date(True)}", f"{who}什么时候生日？"
        return f"{who}'s birthday is {date(False)}", f"When is {who}'s birthday?"

    def h2(zh: bool) -> tuple[str, str]:
        who, what = (
            _people(r, zh),
            r.choice(
                [
                    ("is allergic to peanuts", "对花生过敏"),
                    ("is vegetarian", "吃素"),
                    ("is left-handed", "是左撇子"),
                    ("is learning the piano", "在学钢琴"),
                    ("moved to a new flat", "刚搬了新家"),
                ]
            ),
        )
        if zh:
            return f"{who}{what[1]}", f"{who}有什么需要注意的？"
        return f"{who} {what[0]}", f"What should we know about {who}?"

    return {
        "orders": [o1, o2, o3],
        "delivery": [d1, d2, d3],
        "refunds": [f1, f2],
        "purchasing": [b1, b2, b3],
        "billing": [i1, i2],
        "preferences": [p1, p2],
        "people": [h1, h2],
    }


def _locomo() -> list[StageText]:
    """The dev conversations' observations, events and summary sentences, each with a question about it."""
    out: list[StageText] = []
    for sample in json.loads(LOCOMO.read_text()):
        sentences: list[str] = []
        for session in sample["observation"].values():
            for facts in session.values():
                sentences += [fact[0] for fact in facts]
        for session in sample["event_summary"].values():
            for speaker, events in session.items():
                if speaker != "date":
                    sentences += events
        for summary in sample["session_summary"].values():
            sentences += [s.strip() for s in re.split(r"(?<=[.!?])\s+", summary) if len(s.split()) >= 6]
        for sentence in sentences:
            words = sentence.rstrip(".").split()
            out.append(StageText(sentence, "life", f"What do we know about {' '.join(words[:4])}?"))
    return out


def stage_texts(count: int, seed: int = 39) -> list[StageText]:
    """``count`` distinct texts (LoCoMo's first, then the shop's in a fixed topic mix), half of the shop's Chinese."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[StageText] = []
    for text in _locomo():
        if text.text not in seen and len(out) < count:
            seen.add(text.text)
            out.append(text)
    grammar = _grammar(rng)
    weights = {"orders": 5, "delivery": 3, "refunds": 2, "purchasing": 4, "billing": 2, "preferences": 2, "people": 2}
    topics = list(weights)
    while len(out) < count:
        topic = rng.choices(topics, weights=[weights[t] for t in topics])[0]
        text, question = rng.choice(grammar[topic])(rng.random() < 0.5)
        if text not in seen:
            seen.add(text)
            out.append(StageText(text, topic, question))
    return out
