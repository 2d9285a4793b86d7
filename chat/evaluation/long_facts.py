"""Facts a customer states across a long session, and the questions that ask for them at its end: five
about the customer and one order per bought item, 30 in all. Both long sessions of the evaluation use
them, the scenario's 150-turn session (``generator``) and the simulated 300-message one
(``session_compression``); each is said once and asked for when compression has long folded it away
(docs/eval.md).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PlantedFact:
    say: str  # the customer's turn that states it
    key: str  # the memory key (docs/eval.md, "plants")
    value: str  # as planted (normalised)
    question: str  # asked at the end of the session
    expect: str  # what a right answer contains


PROFILE = {
    "zh": [
        ("我叫王思远", "name", "王思远", "你还记得我叫什么名字吗？", "王思远"),
        ("我的手机号是13912345678", "phone_number", "13912345678", "我的手机号是多少？", "13912345678"),
        (
            "我的邮箱是 siyuan.wang@example.com",
            "email",
            "siyuan.wang@example.com",
            "我的邮箱是什么？",
            "siyuan.wang@example.com",
        ),
        ("我的生日是4月18日", "birthday", "04-18", "我的生日是哪天？", "4月18日"),
        ("我比较喜欢用京东快递", "preferred_carrier", "jd", "我喜欢用哪家快递？", "京东"),
    ],
    "en": [
        ("My name is Nora Bennett", "name", "Nora Bennett", "Do you remember my name?", "Nora Bennett"),
        ("My phone number is 07700 900321", "phone_number", "07700900321", "What's my phone number?", "07700"),
        (
            "My email is nora.bennett@example.com",
            "email",
            "nora.bennett@example.com",
            "What's my email?",
            "nora.bennett@example.com",
        ),
        ("My birthday is on 18 April", "birthday", "04-18", "When is my birthday?", "April 18"),
        ("I prefer DHL for deliveries", "preferred_carrier", "dhl", "Which carrier do I prefer?", "DHL"),
    ],
}

ITEMS = {
    "zh": [
        "电水壶",
        "空气炸锅",
        "行李箱",
        "羽绒服",
        "瑜伽垫",
        "电动牙刷",
        "吹风机",
        "蚕丝被",
        "雨伞",
        "双肩包",
        "智能手表",
        "充电宝",
        "无线鼠标",
        "显示器",
        "咖啡机",
        "加湿器",
        "榨汁机",
        "登山鞋",
        "帐篷",
        "电饭煲",
        "扫地机器人",
        "儿童自行车",
        "茶具",
        "台历",
        "床头灯",
    ],
    "en": [
        "kettle",
        "air fryer",
        "suitcase",
        "down jacket",
        "yoga mat",
        "electric toothbrush",
        "hair dryer",
        "duvet",
        "umbrella",
        "backpack",
        "smartwatch",
        "power bank",
        "wireless mouse",
        "monitor",
        "coffee machine",
        "humidifier",
        "blender",
        "hiking boots",
        "tent",
        "rice cooker",
        "robot vacuum",
        "kids' bike",
        "tea set",
        "desk calendar",
        "bedside lamp",
    ],
}

_ORDER_SAY = {"zh": "订单 {n} 买的是{item}，现在到哪了？", "en": "Order {n} is the {item}, where is it now?"}
_ORDER_ASK = {"zh": "我买{item}的那个订单号是多少？", "en": "What was the order number for the {item}?"}


def planted_facts(language: str, orders: list[str]) -> list[PlantedFact]:
    """The profile facts, then one fact per order (its item), in ``language``; one order per item at most."""
    facts = [PlantedFact(*fact) for fact in PROFILE[language]]
    for number, item in zip(orders, ITEMS[language], strict=False):
        facts.append(
            PlantedFact(
                _ORDER_SAY[language].format(n=number, item=item),
                "order_number",
                number,
                _ORDER_ASK[language].format(item=item),
                number,
            )
        )
    return facts
