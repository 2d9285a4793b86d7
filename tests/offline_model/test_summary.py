"""Summaries: clearly shorter, and never without an order number, date, amount, phone, email or name."""

from __future__ import annotations

import json

import pytest

from agentsite.offline_model import tokens

SYSTEM = {"role": "system", "content": "TASK: summarise\nSummarise the text for the agent's working memory."}
FILLER_ZH = [
    "客户表示非常着急，希望尽快处理。",
    "客服解释了一下流程，并表示会尽力帮忙。",
    "双方又确认了一遍细节，客户表示理解。",
    "客户顺便抱怨了一下最近天气不好，快递可能会慢。",
    "客服建议客户耐心等待，并保持电话畅通。",
]
FILLER_EN = [
    "The customer said they were in a hurry and wanted this handled quickly.",
    "The agent explained how the process works and promised to help.",
    "They went over the details once more and the customer said that was fine.",
    "The customer mentioned the weather had been bad lately, which might slow deliveries.",
    "The agent suggested waiting patiently and keeping the phone reachable.",
]


@pytest.fixture
def summarise(client):
    def run(text: str) -> str:
        response = client.chat.completions.create(
            model="offline-cheap", messages=[SYSTEM, {"role": "user", "content": text}]
        )
        return response.choices[0].message.content

    return run


def _transcript(g, lang: str) -> tuple[str, list[str]]:
    order, amount = g.order(), f"{g.rng.randint(10, 999)}.{g.rng.randint(0, 99):02d}"
    month, day = g.month_day()
    phone = g.cn_mobile()
    email = g.email()
    name = g.zh_name() if lang == "zh" else g.en_name()
    if lang == "zh":
        facts = [
            f"customer: 你好，我是{name}，订单{order}一直没到。",
            f"agent: 查到订单{order}，金额¥{amount}，预计{month}月{day}日送达。",
            f"customer: 我的电话是{phone}，邮箱{email}，到了请联系我。",
        ]
        keep = [order, f"¥{amount}", f"{month}月{day}日", phone, email]
        filler = FILLER_ZH
    else:
        facts = [
            f"customer: Hi, I'm {name}. Order {order} still hasn't arrived.",
            f"agent: I found order {order}, total ${amount}, due on {g.MONTHS_EN[month - 1]} {day}.",
            f"customer: You can reach me at {phone} or {email}.",
        ]
        keep = [order, f"${amount}", f"{g.MONTHS_EN[month - 1]} {day}", phone, email, name]
        filler = [f"agent: {f}" if i % 2 else f"customer: {f}" for i, f in enumerate(FILLER_EN)]
    lines = []
    for fact in facts:
        lines.extend(g.rng.sample(filler, 3))
        lines.append(fact)
    lines.extend(g.rng.sample(filler, 4))
    return "\n".join(lines * 2 if g.rng.random() < 0.3 else lines), keep


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_transcripts_keep_every_identifier_and_get_shorter(summarise, gen, lang):
    g = gen(71 if lang == "zh" else 73)
    for _ in range(10):
        text, keep = _transcript(g, lang)
        summary = summarise(text)
        for value in keep:
            assert value in summary, (value, summary)
        assert tokens.count(summary) < 0.6 * tokens.count(text)


def test_a_long_json_tool_result_becomes_a_few_hundred_tokens_with_all_ids_dates_amounts(summarise, gen):
    g = gen(79)
    blurb = (
        "This premium product is made from responsibly sourced materials and tested for comfort, durability "
        "and everyday use in a wide range of conditions, backed by our satisfaction promise. "
    )
    order = {
        "order_number": g.order(),
        "status": "in_transit",
        "placed_at": "2025-03-01T09:12:00Z",
        "total": 1299.5,
        "currency": "CNY",
        "customer": {"name": "Alice Smith", "email": "alice@example.com"},
        "items": [
            {
                "sku": f"SKU-{i}",
                "name": f"Item {i}",
                "quantity": 1,
                "price": 100.25 + i,
                "description": blurb * 6,
                "specs": {"material": "aluminium", "warranty": "twelve months standard coverage " * 4},
            }
            for i in range(5)
        ],
        "shipment": {
            "carrier": "SF Express",
            "tracking_number": "SF1234567890123",
            "eta": "2025-03-06",
            "events": [
                {
                    "time": f"2025-03-0{2 + i // 4}T{8 + i}:00:00Z",
                    "location": "Shenzhen hub",
                    "description": "The parcel was processed at the facility and loaded for onward transport. " * 6,
                }
                for i in range(12)
            ],
        },
    }
    text = json.dumps(order, ensure_ascii=False)
    assert tokens.count(text) > 2500
    summary = summarise(text)
    assert tokens.count(summary) < 700
    required = (
        [
            order["order_number"],
            "2025-03-01T09:12:00Z",
            "1299.5",
            "SF1234567890123",
            "2025-03-06",
            "alice@example.com",
            "Alice Smith",
        ]
        + [e["time"] for e in order["shipment"]["events"]]
        + [str(item["price"]) for item in order["items"]]
    )
    for value in required:
        assert value in summary, value


def test_short_inputs_come_back_whole(summarise):
    text = "customer: 我的订单ORD-2025-0001到哪了？\nagent: 已发货，预计3月5日送达。"
    assert summarise(text) == text


def test_amounts_in_yuan_and_capitalised_names_survive(summarise):
    lines = [f"customer: {f}" for f in FILLER_EN] * 3
    lines.insert(7, "agent: Bob Taylor from the warehouse approved a refund of 120元 and $15.50 shipping.")
    summary = summarise("\n".join(lines))
    for value in ("Bob Taylor", "120元", "$15.50"):
        assert value in summary
