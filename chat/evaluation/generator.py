"""Write the generated part of the corpus: customers from templates with random values and a fixed seed.
``python -m chat.evaluation.generator`` rewrites ``chat/evaluation/scenarios/generated.json`` and
``long_session.json``, the same files for the same seed: five sessions a customer that plant facts,
confirm the birthday again in other words (the duplicate path), change the preferred carrier for half
of them (the conflict path) and ask about them later, plus one 300-message session. What each session
holds: docs/eval.md, "Scenario file format".
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import NotRequired, TypedDict

from chat.evaluation import long_facts

SEED = 20250816
CUSTOMERS = 40
COHORTS = 4  # groups of customers with the same days between sessions: their sessions share days (runner.timeline)
HERE = Path(__file__).resolve().parent / "scenarios"
MONTHS_EN = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
ZH_DIGITS = "零一二三四五六七八九十"
CARRIERS = {  # id: (zh name as the agent says it, en name, how a customer writes it in zh, in en)
    "sf_express": ("顺丰速运", "SF Express", "顺丰", "SF Express"),
    "jd": ("京东物流", "JD Logistics", "京东快递", "JD Logistics"),
    "ems": ("EMS", "EMS", "邮政EMS", "EMS"),
    "dhl": ("DHL", "DHL", "DHL", "DHL"),
    "ups": ("UPS", "UPS", "UPS", "UPS"),
    "zto": ("中通快递", "ZTO Express", "中通", "ZTO"),
}
CHANNELS = {
    "wechat": ("微信", "WeChat"),
    "sms": ("短信", "SMS"),
    "phone": ("电话", "phone"),
    "email": ("邮件", "email"),
}
SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗"
GIVEN = ["伟", "芳", "娜", "敏", "静", "磊", "洋", "艳", "勇", "军", "杰", "娟", "涛", "明", "超", "霞", "平", "刚"]
FIRST = ["Alice", "Ben", "Chloe", "David", "Emma", "Frank", "Grace", "Henry", "Isla", "Jack", "Kate", "Liam", "Mia"]
LAST = ["Smith", "Jones", "Brown", "Taylor", "Wilson", "Evans", "Walker", "Hughes", "Green", "Hall", "Wood", "King"]
CITIES_ZH = ["上海", "杭州", "南京", "苏州", "广州", "深圳", "成都", "武汉", "北京", "天津"]
CITIES_EN = ["Leeds", "Bristol", "Manchester", "Glasgow", "Cardiff", "York", "Bath", "Oxford", "Derby", "Hull"]
ITEMS_ZH = [
    ("蓝牙耳机", "199.00"),
    ("保温杯", "89.00"),
    ("机械键盘", "459.00"),
    ("运动鞋", "329.00"),
    ("台灯", "129.00"),
]
ITEMS_EN = [("Bluetooth headphones", "59.00"), ("Travel mug", "18.00"), ("Keyboard", "89.00"), ("Desk lamp", "35.00")]

SMALL_TALK = {
    "zh": ["你好", "谢谢", "好的，谢谢你", "辛苦了", "今天天气不错"],
    "en": ["hi there", "thanks!", "ok, thank you", "cheers", "have a nice day"],
}
POLICIES = {
    "zh": [("退款政策是什么？", ["7 天", "7天"]), ("一般几天能到？配送时效是多少？", ["1-2", "2-4"])],
    "en": [("What is your refund policy?", ["7 days"]), ("How long does shipping take?", ["1-2", "2-4"])],
}


# The scenario format as written (docs/eval.md, "Scenario file format"); ``scenarios`` reads and checks it.
Check = dict[str, str | list[str] | dict[str, str | int]]  # one check: its kind and argument
Event = list[float | str]  # [days ago, place, description]


class Turn(TypedDict):
    say: str
    question: NotRequired[str]
    needs_memory: NotRequired[bool]
    plants: NotRequired[dict[str, str]]
    checks: NotRequired[list[Check]]


TurnSpec = Turn | str  # a bare string: a turn with nothing planted or checked


class Session(TypedDict):
    days_after: NotRequired[int]
    turns: list[TurnSpec]
    after: NotRequired[list[Check]]


class Order(TypedDict):
    number: str
    status: str
    days_ago: int
    total: NotRequired[str]
    items: NotRequired[list[list[str | int]]]  # [name, quantity, unit price]
    carrier: NotRequired[str]
    tracking: NotRequired[str]
    events: NotRequired[list[Event]]


class CustomerSpec(TypedDict):
    id: str
    language: str
    name: str
    tags: list[str]
    orders: list[Order]
    sessions: list[Session]


class ScenarioData(TypedDict):
    format: int
    name: str
    description: str
    customers: list[CustomerSpec]


class _Facts(TypedDict):
    """What a generated customer's questions ask about."""

    birthday: tuple[int, int]  # month, day
    order: str
    other_order: str
    carrier: str
    channel: str | None  # given in the third session


def _birthday_phrasings(month: int, day: int) -> dict[str, list[str]]:
    zh_day = (
        ZH_DIGITS[day]
        if day <= 10
        else ("十" if day < 20 else ZH_DIGITS[day // 10] + "十") + (ZH_DIGITS[day % 10] if day % 10 else "")
    )
    zh_month = ZH_DIGITS[month] if month <= 10 else "十" + ZH_DIGITS[month % 10]
    en_month = MONTHS_EN[month - 1]
    return {
        "zh": [
            f"我的生日是{month}月{day}日",
            f"对了，我生日是{zh_month}月{zh_day}号",
            f"再说一次，我的生日是{month}月{day}号",
        ],
        "en": [
            f"My birthday is {en_month} {day}",
            f"Just so you know, my birthday is the {day}th of {en_month}",
            f"To confirm, my birthday is {day} {en_month}",
        ],
    }


def _events(rng: random.Random, language: str, n: int) -> list[Event]:
    cities = CITIES_ZH if language == "zh" else CITIES_EN
    zh = [
        "快件已到达转运中心，正在分拣，预计很快发往下一站，请耐心等待",
        "快件已从转运中心发出，正在运输途中，下一站是分拨中心",
    ]
    en = [
        "Parcel arrived at the sorting hub and is being processed for the next leg of its journey",
        "Parcel departed the sorting hub and is in transit to the next distribution centre",
    ]
    texts = zh if language == "zh" else en
    return [[round(n * 0.3 - i * 0.3, 1), rng.choice(cities), texts[i % 2]] for i in range(n)]


def _question(rng: random.Random, language: str, kind: str, facts: _Facts) -> Turn:
    zh = language == "zh"
    if kind == "birthday":
        month, day = facts["birthday"]
        say = rng.choice(
            ["我的生日是哪天？", "你还记得我的生日吗？"]
            if zh
            else ["When is my birthday?", "Do you remember my birthday?"]
        )
        expect = f"{month}月{day}日" if zh else f"{MONTHS_EN[month - 1]} {day}"
        return {"say": say, "question": "birthday", "needs_memory": True, "checks": [{"reply_contains": expect}]}
    if kind == "parcel":
        say = rng.choice(
            ["我的快递到哪了？", "上次那个订单物流怎么样了？"]
            if zh
            else ["Where is my parcel?", "How is the order from last time doing?"]
        )
        return {
            "say": say,
            "question": "order_number",
            "needs_memory": True,
            "checks": [{"reply_contains": facts["order"]}],
        }
    if kind == "carrier":
        say = rng.choice(
            ["我喜欢用哪家快递？", "你记得我偏好哪家快递吗？"]
            if zh
            else ["Which carrier do I prefer?", "Do you remember my preferred carrier?"]
        )
        name = CARRIERS[facts["carrier"]][0 if zh else 1]
        return {"say": say, "question": "preferred_carrier", "needs_memory": True, "checks": [{"reply_contains": name}]}
    if kind == "channel":
        say = "你们会通过什么方式联系我？" if zh else "How will you contact me?"
        assert facts["channel"] is not None, "the channel is asked about only after the session that gives it"
        name = CHANNELS[facts["channel"]][0 if zh else 1]
        return {"say": say, "question": "contact_channel", "needs_memory": True, "checks": [{"reply_contains": name}]}
    if kind == "policy":
        say, expected = rng.choice(POLICIES[language])
        return {"say": say, "question": "policy", "checks": [{"reply_contains_any": expected}]}
    # an order whose number the customer gives again: no memory needed
    number = facts["other_order"]
    say = f"帮我查一下订单 {number} 的状态" if zh else f"What's the status of order {number}?"
    return {"say": say, "question": "order_status", "checks": [{"reply_contains": number}]}


def cohort_gaps(rng: random.Random, cohorts: int = COHORTS) -> list[list[int]]:
    """Days between the sessions, one random sequence per cohort (its customers share the clock, docs/eval.md)."""
    return [[0, rng.randint(1, 20), rng.randint(1, 20), rng.randint(1, 30), rng.randint(1, 30)] for _ in range(cohorts)]


def customer(rng: random.Random, index: int, gaps: list[int]) -> CustomerSpec:
    """One generated customer with five sessions, ``gaps[s]`` days before session ``s``."""
    language = "zh" if index % 2 == 0 else "en"
    zh = language == "zh"
    name = rng.choice(SURNAMES) + rng.choice(GIVEN) if zh else f"{rng.choice(FIRST)} {rng.choice(LAST)}"
    month, day = rng.randint(1, 12), rng.randint(1, 28)
    main, other = f"ORD-2024-{1000 + index * 2:04d}", f"ORD-2024-{1001 + index * 2:04d}"
    first_carrier, second_carrier = rng.sample(sorted(CARRIERS), 2)
    changes_carrier = index % 4 in (0, 3)
    channel = rng.choice(["wechat", "sms", "phone"])
    items = ITEMS_ZH if zh else ITEMS_EN
    long_history = index % 3 == 0
    item, price = rng.choice(items)
    orders: list[Order] = [
        {
            "number": main,
            "status": "shipped",
            "days_ago": 2,
            "total": price,
            "items": [[item, 1, price]],
            "carrier": "顺丰速运" if zh else "UPS",
            "tracking": f"T{index:03d}{rng.randint(10000, 99999)}",
            "events": _events(rng, language, 28 if long_history else 3),
        },
        {
            "number": other,
            "status": rng.choice(["processing", "delivered"]),
            "days_ago": 12,
            "total": price,
            "items": [[item, 1, price]],
        },
    ]
    facts = _Facts(birthday=(month, day), order=main, other_order=other, carrier=first_carrier, channel=None)
    birthday = _birthday_phrasings(month, day)[language]
    carrier_said = CARRIERS[first_carrier][2 if zh else 3]
    ask = "发货了吗？" if zh else "has it shipped?"

    s0: list[TurnSpec] = [
        {
            "say": (f"我的订单号是 {main}，{ask}" if zh else f"My order number is {main}, {ask}"),
            "plants": {"order_number": main},
            "checks": [{"reply_contains": main}],
        },
        {"say": birthday[0], "plants": {"birthday": f"{month:02d}-{day:02d}"}},
        {
            "say": (f"以后发货我比较喜欢用{carrier_said}" if zh else f"I prefer {carrier_said} for deliveries"),
            "plants": {"preferred_carrier": first_carrier},
        },
    ]
    opening = ["birthday", "parcel", "carrier", "policy", "order_status"]
    q1 = _question(rng, language, rng.choice(opening), facts)
    s1: list[TurnSpec] = [
        q1,
        {"say": birthday[1], "plants": {"birthday": f"{month:02d}-{day:02d}"}},
        rng.choice(SMALL_TALK[language]),
    ]
    q2 = _question(rng, language, rng.choice(opening), facts)
    s2: list[TurnSpec] = [
        q2,
        {
            "say": (
                f"以后请通过{CHANNELS[channel][0]}联系我"
                if zh
                else f"Please contact me by {CHANNELS[channel][1]} from now on"
            )
        },
        {"say": "确认" if zh else "yes", "plants": {"contact_channel": channel}},
    ]
    facts["channel"] = channel
    later = [*opening, "channel"]
    q3 = _question(rng, language, rng.choice(later), facts)
    before_the_change = _Facts(**facts)
    s3: list[TurnSpec] = [q3]
    after3: list[Check] = []
    if changes_carrier:
        new_said = CARRIERS[second_carrier][2 if zh else 3]
        s3.append(
            {
                "say": (f"其实我现在更喜欢用{new_said}了" if zh else f"Actually, I'd rather use {new_said} now"),
                "plants": {"preferred_carrier": second_carrier},
            }
        )
        facts["carrier"] = second_carrier
        after3 = [{"conflict": "preferred_carrier"}, {"memory": {"key": "preferred_carrier", "value": second_carrier}}]
    else:
        s3.append(rng.choice(SMALL_TALK[language]))
    s3.append({"say": birthday[2], "plants": {"birthday": f"{month:02d}-{day:02d}"}})
    q4 = _question(rng, language, rng.choice(later), facts)
    s4: list[TurnSpec] = [q4]
    in_s3 = index % 2 == 0  # then the fifth question comes before s3's change of carrier and expects the old one
    fifth = _question(
        rng, language, rng.choice(["birthday", "parcel", "carrier", "channel"]), before_the_change if in_s3 else facts
    )
    fillers: list[TurnSpec] = [
        _question(rng, language, "policy", facts),
        rng.choice(SMALL_TALK[language]),
        _question(rng, language, "order_status", facts),
    ]
    for f in fillers:  # fillers are scored only where they sit at turn 1 or turn 5
        if isinstance(f, dict):
            f.pop("question", None)
    if in_s3:
        s3 = [*s3[:1], *fillers, fifth, *s3[1:]]
    else:
        s4 = [*s4, *fillers, fifth]
    sessions: list[Session] = [
        {
            "turns": s0,
            "after": [
                {"memory": {"key": "order_number", "value": main}},
                {"memory": {"key": "birthday", "value": f"{month:02d}-{day:02d}"}},
            ],
        },
        {"days_after": gaps[1], "turns": s1, "after": [{"memory_count": {"key": "birthday", "max": 1}}]},
        {"days_after": gaps[2], "turns": s2, "after": [{"memory": {"key": "contact_channel", "value": channel}}]},
        {"days_after": gaps[3], "turns": s3, "after": after3},
        {
            "days_after": gaps[4],
            "turns": s4,
            "after": [
                {"memory_count": {"key": "birthday", "max": 1}},
                {"memory_count": {"key": "preferred_carrier", "max": 1}},
            ],
        },
    ]
    tags = ["generated", "long_tool_results" if long_history else "short_tool_results"]
    if changes_carrier:
        tags.append("conflict")
    return {
        "id": f"g{index:02d}-{language}",
        "language": language,
        "name": name,
        "tags": tags,
        "orders": orders,
        "sessions": sessions,
    }


def long_session(rng: random.Random) -> CustomerSpec:
    """One customer, one session of 150 turns (300 messages), then a session that asks about its start.

    Thirty facts (``long_facts``) are stated on turns spread over the first 105 (orders the customer
    has received) and asked for on the 30 turns before the last; the rest is small talk, policy
    questions and a lookup.
    """
    number, other = "ORD-2024-1900", "ORD-2024-1901"
    fillers = [
        "帮我查一下订单 ORD-2024-1901 的状态",
        "退款政策是什么？",
        "一般几天能到？",
        "好的",
        "谢谢",
        "质量问题的运费谁出？",
        "可以修改收货地址吗？",
        "你们有哪些通知设置？",
        "明白了",
        "还有别的问题想问一下",
    ]
    bought = [f"ORD-2024-{1902 + i}" for i in range(len(long_facts.ITEMS["zh"]))]
    facts = long_facts.planted_facts("zh", bought)
    turns: list[TurnSpec] = [
        {
            "say": f"我的订单号是 {number}，发货了吗？",
            "plants": {"order_number": number},
            "checks": [{"reply_contains": number}],
        }
    ]
    turns += [fillers[i % len(fillers)] if i % 7 else rng.choice(fillers) for i in range(1, 149)]
    asked_from = 149 - len(facts)
    for i, fact in enumerate(facts):  # stated on turns 2..~110, asked in the same order before the last turn
        turns[2 + i * (asked_from - 12) // len(facts)] = {"say": fact.say, "plants": {fact.key: fact.value}}
        turns[asked_from + i] = {
            "say": fact.question,
            "question": fact.key,
            "checks": [{"reply_contains": fact.expect}],
        }
    turns.append(
        {"say": "我一开始问的那个订单到哪了？", "question": "order_number", "checks": [{"reply_contains": number}]}
    )
    items = dict(zip(bought, long_facts.ITEMS["zh"], strict=True))
    return {
        "id": "long-300",
        "language": "zh",
        "name": "长会话",
        "tags": ["long_session"],
        "orders": [
            {
                "number": number,
                "status": "shipped",
                "days_ago": 2,
                "carrier": "顺丰速运",
                "tracking": "SF19000001",
                "events": [[1, "杭州", "已揽收"], [0.5, "上海", "运输中"]],
            },
            {"number": other, "status": "delivered", "days_ago": 20},
            *(
                Order(
                    number=n,
                    status="delivered",
                    days_ago=8 + i % 5,
                    items=[[item, 1, f"{rng.randrange(39, 899)}.00"]],
                    carrier="顺丰速运",
                    tracking=f"SF1900{i + 10:04d}",
                    events=[[7, "杭州", "已揽收"], [6, "上海", "已签收"]],
                )
                for i, (n, item) in enumerate(items.items())
            ),
        ],
        "sessions": [
            {"turns": turns},
            {
                "days_after": 2,
                "turns": [
                    {
                        "say": "我的快递到哪了？",
                        "question": "order_number",
                        "needs_memory": True,
                        "checks": [{"reply_contains": number}],
                    }
                ],
            },
        ],
    }


def generate(seed: int = SEED, customers: int = CUSTOMERS) -> tuple[ScenarioData, ScenarioData]:
    """The generated corpus and the 300-message scenario, as JSON-able data."""
    rng = random.Random(seed)
    gaps = cohort_gaps(rng)
    corpus: ScenarioData = {
        "format": 1,
        "name": "generated",
        "description": f"{customers} customers x 5 sessions from templates, seed {seed} (chat/evaluation/generator.py)",
        "customers": [customer(rng, i, gaps[i * len(gaps) // customers]) for i in range(customers)],
    }
    long: ScenarioData = {
        "format": 1,
        "name": "long_session",
        "description": "A 300-message session (150 customer turns) and a later session about its first order",
        "customers": [long_session(rng)],
    }
    return corpus, long


def main() -> None:
    corpus, long = generate()
    HERE.mkdir(exist_ok=True)
    for name, data in (("generated.json", corpus), ("long_session.json", long)):
        (HERE / name).write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
