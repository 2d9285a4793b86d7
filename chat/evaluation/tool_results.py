"""Long tool results before and after working memory shortens them: the real tools' results (``chat.tools``)
on a scratch shop, and generated policy texts with whole articles, put into working memory as the agent
puts them (``chat.tool_results.append``: compacted, then summarised by the cheap model when still long,
keeping every value a later step needs). What is measured and the floor: docs/eval.md.
"""

from __future__ import annotations

import json
import random
import statistics
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from agentsite import llm
from chat import tool_results as results_in_memory
from chat.evaluation.scratch import Progress, ScratchShop, make_customers, quiet, scratch
from chat.models import CustomerProfile
from chat.tools import ToolContext, run_tool
from memory.tokens import count_tokens
from memory.working import ToolCall, WorkingMemory

ARTICLE_REDUCTION = -0.85  # the article's change in tool-result tokens


@dataclass(frozen=True)
class ToolResultParams:
    per_kind: int = 6  # results of each kind: order lists, tracking histories, order details, policy texts
    seed: int = 12


class Row(TypedDict):
    """One result measured."""

    kind: str
    tool: str
    source: str  # "tool" (the real tool's result) or "generated"
    raw_tokens: int
    tokens: int  # what working memory holds
    summarised: bool
    reduction: float
    values_kept: int
    values_needed: int
    floor_tokens: int  # the values a later step needs, written bare


class KindFigures(TypedDict):
    results: int
    median_raw_tokens: float | None
    median_tokens: float | None
    median_reduction: float | None
    median_floor_reduction: float | None
    values_kept: int
    values_needed: int


class ToolResults(TypedDict):
    """The figure: every row, and the long results' figures overall and by kind."""

    threshold_tokens: int
    results: list[Row]
    long_results: int
    summarised: int
    median_reduction: float | None
    total_reduction: float | None
    values_kept: int
    values_needed: int
    floor_median_reduction: float | None
    floor_total_reduction: float | None
    by_kind: dict[str, KindFigures]
    seconds: float


_POLICY_TOPICS = {
    "zh": [
        (
            "退换货政策",
            [
                "商品签收后七天内可无理由退货，商品需保持完好、配件齐全。",
                "定制商品、贴身衣物和已拆封的食品不支持无理由退货。",
                "质量问题导致的退货，运费由本店承担；非质量问题的退货运费由客户承担。",
                "退货寄回后，仓库会在收到包裹的两个工作日内完成检验。",
                "检验通过后，退款会在三到五个工作日内原路退回。",
                "使用优惠券的订单退货时，优惠券按比例返还，过期的优惠券不再补发。",
                "换货只限同款不同尺码或颜色，换货商品缺货时改为退款。",
                "大件家具类商品退货需预约上门取件，取件费按地区另计。",
            ],
        ),
        (
            "配送说明",
            [
                "江浙沪地区一般次日送达，其他地区二到四天送达，偏远地区五到七天。",
                "默认使用顺丰速运，客户也可以在下单时选择京东物流或中国邮政。",
                "订单满九十九元包邮，未满九十九元收取八元运费。",
                "大促期间发货可能延迟一到两天，请以订单页面显示为准。",
                "包裹签收前请当面检查外包装，如有破损可以拒收并联系客服。",
                "海外订单目前只配送到香港、澳门和新加坡，关税由收件人承担。",
            ],
        ),
        (
            "通知与隐私",
            [
                "订单状态变化时我们会通过短信或微信通知您，您可以在个人中心关闭促销通知。",
                "订单相关的物流通知无法完全关闭，以免错过签收。",
                "我们只在提供服务所必需的范围内保存您的信息，不会向第三方出售。",
                "您可以随时要求查看或删除我们记住的关于您的信息。",
                "客服对话会保存一百八十天，用于改进服务和处理纠纷。",
            ],
        ),
        (
            "保修与售后",
            [
                "电子产品自签收之日起享受一年保修，保修期内非人为损坏免费维修。",
                "维修需要寄回商品和购买凭证，寄回运费由本店承担。",
                "维修周期一般为七到十个工作日，无法维修的商品会换新或退款。",
                "人为损坏、进水和私自拆机不在保修范围内，可以付费维修。",
                "保修期外的维修按配件成本和工时收费，维修前会先报价。",
                "小家电提供三十天只换不修服务，需保留完整包装。",
                "延保服务可以在下单后三十天内购买，延保期限为一到两年。",
            ],
        ),
    ],
    "en": [
        (
            "Returns and refunds",
            [
                "You can return most items within 30 days of delivery for a full refund.",
                "Items must be unused, in their original packaging, with all accessories.",
                "Made-to-order items, underwear and opened food cannot be returned unless faulty.",
                "We pay return shipping when an item is faulty or we sent the wrong one.",
                "Refunds go back to the original payment method within 5 business days of inspection.",
                "Exchanges are limited to a different size or colour of the same product.",
                "Large furniture returns need a collection appointment; a fee may apply.",
            ],
        ),
        (
            "Shipping",
            [
                "Standard delivery takes 3 to 5 business days; express delivery takes 1 to 2.",
                "Orders over $50 ship free; smaller orders pay a flat $4.99.",
                "We ship with UPS by default; DHL is available at checkout for international orders.",
                "During sales events dispatch may take one or two extra days.",
                "Check the parcel on delivery and refuse it if the box is damaged.",
                "International customers pay any import duties and taxes on delivery.",
            ],
        ),
        (
            "Notifications and privacy",
            [
                "We send order and shipping updates by email or text message.",
                "You can mute promotional messages in your account settings at any time.",
                "Shipping updates cannot be fully turned off so that you do not miss a delivery.",
                "We keep chat transcripts for 180 days to improve service and resolve disputes.",
                "You can ask us to show or delete what we remember about you.",
            ],
        ),
        (
            "Warranty and repairs",
            [
                "Electronics carry a one-year warranty from the delivery date covering defects in materials.",
                "To claim, send the item back with its order number; we pay the shipping for warranty repairs.",
                "Repairs usually take 7 to 10 business days; items we cannot repair are replaced or refunded.",
                "Accidental damage, water damage and opened casings are not covered but can be repaired for a fee.",
                "Out-of-warranty repairs are quoted before any work starts, parts and labour included.",
                "Small appliances can be exchanged, not repaired, within 30 days if the packaging is complete.",
                "An extended warranty of one or two years can be bought within 30 days of the order.",
            ],
        ),
    ],
}


class _Article(TypedDict):
    id: int
    title: str
    body: str


class _PolicyPayload(TypedDict):
    articles: list[_Article]


def _policy_payload(rng: random.Random, zh: bool) -> _PolicyPayload:
    """A policy search result carrying whole articles (the real tool returns 240-character snippets)."""
    topics = _POLICY_TOPICS["zh" if zh else "en"]
    articles: list[_Article] = []
    for number, (title, sentences) in enumerate(rng.sample(topics, k=rng.randrange(3, len(topics) + 1)), start=1):
        body = ("" if zh else " ").join(rng.sample(sentences, k=rng.randrange(len(sentences) - 2, len(sentences) + 1)))
        articles.append({"id": rng.randrange(10, 99) * 10 + number, "title": title, "body": body})
    return {"articles": articles}


@dataclass(frozen=True)
class _Case:
    """One result to measure: a real tool's for ``customer``, or a generated ``payload``."""

    kind: str
    tool: str
    arguments: dict[str, str]
    customer: int | None = None
    payload: _PolicyPayload | None = None


def _tool_cases(p: ToolResultParams, shop: ScratchShop, rng: random.Random) -> list[_Case]:
    """Every result to measure, ``p.per_kind`` of each kind."""
    cases: list[_Case] = []
    customers = make_customers(p.per_kind * 3, "tools", languages=("zh-hans", "en"))
    for i in range(p.per_kind):
        zh = i % 2 == 0
        owner = customers[i]
        for _ in range(rng.randrange(16, 27)):  # list_my_orders shows the latest 20
            shop.order(owner, zh, items=rng.randrange(1, 3), events=rng.choice([0, 3]))
        cases.append(_Case("order list", "list_my_orders", {}, owner))
        tracked = shop.order(customers[p.per_kind + i], zh, items=1, events=rng.randrange(12, 31))
        cases.append(_Case("tracking history", "track_shipment", {"order_number": tracked.number}, tracked.customer_id))
        detailed = shop.order(
            customers[2 * p.per_kind + i], zh, items=rng.randrange(5, 11), events=rng.randrange(10, 21)
        )
        cases.append(_Case("order details", "lookup_order", {"order_number": detailed.number}, detailed.customer_id))
        query = {"query": "退换货和配送政策" if zh else "returns and shipping policy"}
        cases.append(_Case("policy text", "search_policies", query, payload=_policy_payload(rng, zh)))
    return cases


def _result(case: _Case) -> tuple[Any, str]:
    """The result to put into working memory (parsed JSON, as the tool returns it) and where it came from."""
    if case.payload is not None:
        return case.payload, "generated"
    assert case.customer is not None  # every case without a payload runs a tool for its customer
    language = CustomerProfile.objects.get(user_id=case.customer).language
    ctx = ToolContext(case.customer, uuid.uuid4(), "zh" if language.startswith("zh") else "en")
    return run_tool(ctx, case.tool, case.arguments), "tool"


def tool_results(p: ToolResultParams | None = None, report: Progress = quiet) -> ToolResults:
    """Tokens of long tool results before and after working memory summarises them."""
    p = p or ToolResultParams()
    rng = random.Random(p.seed)
    rows: list[Row] = []
    threshold = WorkingMemory.from_settings().summarise_over_tokens
    started = time.perf_counter()
    with scratch():
        cases = _tool_cases(p, ScratchShop(rng), rng)
        for index, case in enumerate(cases):
            result, source = _result(case)
            buffer = WorkingMemory.from_settings()
            call = ToolCall(f"call_{index}", case.tool, json.dumps(case.arguments, ensure_ascii=False))
            buffer.append_tool_call([call])
            entry, _ = results_in_memory.append(  # as the agent does
                buffer, call.id, case.tool, case.arguments, result, llm.summarise
            )
            raw_tokens = entry.metadata["raw_tokens"]
            kept, needed = results_in_memory.kept_share(case.tool, result, entry.content)
            # The floor: the values no shortening may lose, written bare (about as far as any shortening goes).
            floor = count_tokens("; ".join(results_in_memory.must_keep(case.tool, result)))
            rows.append(
                Row(
                    kind=case.kind,
                    tool=case.tool,
                    source=source,
                    raw_tokens=raw_tokens,
                    tokens=entry.tokens,
                    summarised=bool(entry.metadata["summarised"]),
                    reduction=round(entry.tokens / raw_tokens - 1, 4),
                    values_kept=kept,
                    values_needed=needed,
                    floor_tokens=floor,
                )
            )
            report("tool results", index + 1, len(cases))
    long = [r for r in rows if r["raw_tokens"] > threshold]
    kinds = sorted({r["kind"] for r in rows})
    return ToolResults(
        threshold_tokens=threshold,
        results=rows,
        long_results=len(long),
        summarised=sum(r["summarised"] for r in long),
        median_reduction=_median([r["reduction"] for r in long]),
        total_reduction=_share(long, "tokens"),
        values_kept=sum(r["values_kept"] for r in long),
        values_needed=sum(r["values_needed"] for r in long),
        floor_median_reduction=_median([r["floor_tokens"] / r["raw_tokens"] - 1 for r in long]),
        floor_total_reduction=_share(long, "floor_tokens"),
        by_kind={kind: _kind_figures(group) for kind in kinds if (group := [r for r in long if r["kind"] == kind])},
        seconds=round(time.perf_counter() - started, 1),
    )


def _share(long: list[Row], measure: Literal["tokens", "floor_tokens"]) -> float | None:
    """The change in tokens over all long results together, to ``measure``."""
    if not long:
        return None
    return round(sum(r[measure] for r in long) / sum(r["raw_tokens"] for r in long) - 1, 4)


def _kind_figures(group: list[Row]) -> KindFigures:
    return KindFigures(
        results=len(group),
        median_raw_tokens=_median([r["raw_tokens"] for r in group]),
        median_tokens=_median([r["tokens"] for r in group]),
        median_reduction=_median([r["reduction"] for r in group]),
        median_floor_reduction=_median([r["floor_tokens"] / r["raw_tokens"] - 1 for r in group]),
        values_kept=sum(r["values_kept"] for r in group),
        values_needed=sum(r["values_needed"] for r in group),
    )


def _median(values: Sequence[float]) -> float | None:
    return round(float(statistics.median(values)), 4) if values else None
