"""A long session before and after compression: a scripted chat (small talk, order questions answered by
the real tools, planted facts) stored through ``SessionStore`` and compressed after every message with the
cheap model, then the history the agent builds working memory from, and each planted fact asked for at the
end with that history. What is counted: docs/eval.md.
"""

from __future__ import annotations

import json
import random
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from django.conf import settings

from agentsite import clock, llm
from chat import prompts
from chat import tool_results as results_in_memory
from chat.evaluation import long_facts
from chat.evaluation.scratch import Progress, ScratchShop, make_customers, quiet, scratch
from chat.models import Order
from chat.tools import TOOLS, ToolContext, run_tool, schemas
from memory.models import CompressionSummary, ConversationMessage
from memory.session import SessionKeys, SessionStore
from memory.tokens import count_tokens
from memory.working import Entry, Role, ToolCall, WorkingMemory

ARTICLE_TOKENS = (4000, 1200)  # the article's session tokens before and after compression


@dataclass(frozen=True)
class CompressionParams:
    messages: int = 300
    seed: int = 12


class SessionCompression(TypedDict):
    """The figure: the session's tokens stored and as working memory, and the facts answered at its end."""

    facts_asked: int
    facts_answered: int
    facts_missed: list[str]
    messages: int
    tokens_before: int
    tokens_after: int
    working_memory_before: int
    working_memory_after: int
    summaries: int
    summarised_messages: int
    summaries_tokens_before: int
    summaries_tokens_after: int
    verbatim_messages: int
    system_prompt_tokens: int
    reduction: float
    seconds: float


_TALK = {
    "zh": [
        ("在吗？", "在的，请问有什么可以帮您？"),
        ("谢谢你", "不客气，祝您购物愉快！"),
        ("好的，我知道了", "好的，还有其他问题随时找我。"),
        ("运费怎么算？", "订单满九十九元包邮，未满收取八元运费。"),
        ("可以开发票吗？", "可以的，订单完成后在订单页面申请电子发票即可。"),
        ("你们几点下班？", "在线客服全天都在，人工客服每天九点到二十一点。"),
        ("能便宜点吗", "抱歉，价格是统一的，您可以关注店铺的优惠券活动。"),
    ],
    "en": [
        ("hi, are you there?", "Hi! Yes, how can I help you today?"),
        ("thanks!", "You're welcome, happy shopping!"),
        ("ok, got it", "Great, let me know if there's anything else."),
        ("how much is shipping?", "Orders over $50 ship free; smaller orders pay a flat $4.99."),
        ("can I get an invoice?", "Yes, you can download an invoice from the order page once it has shipped."),
        ("when does support close?", "I'm here around the clock; our staff answer from 9 am to 9 pm."),
    ],
}
_ASK = {
    "zh": ["帮我查一下订单 {n} 的状态", "{n} 发货了吗？", "我的快递 {n} 到哪了", "订单 {n} 什么时候能到"],
    "en": ["can you check order {n}?", "has {n} shipped yet?", "where is my parcel {n}?", "when will {n} arrive?"],
}
_ANSWER = {
    "zh": "订单 {n} 当前状态：{s}，由{c}配送，预计 {e} 送达。",
    "en": "Order {n} is {s}; {c} expects to deliver it on {e}.",
}


_NOTED = {"zh": "好的，记下了。", "en": "Thanks, noted."}


@dataclass(frozen=True)
class _Said:
    """A message of the script: the customer's (``user``) or the agent's (``assistant``)."""

    role: str
    text: str


@dataclass(frozen=True)
class _ToolStep:
    """A tool the agent runs for the customer: its call, then its real result."""

    tool: str
    arguments: dict[str, str]
    customer: int
    lang: str


_Step = _Said | _ToolStep


def _session_script(
    rng: random.Random, orders: list[Order], messages: int, facts: Sequence[long_facts.PlantedFact] = ()
) -> list[_Step]:
    """Turns of a long customer-service chat, exactly ``messages`` messages, ending with the customer's.

    Each of ``facts`` is stated once (its turn and a short answer), spread over the first three quarters.
    """
    script: list[_Step] = []
    body = messages - 1
    count = 0  # messages so far (a tool step is two: the call and its result)
    due = [(i * body * 3 // 4 // max(1, len(facts)), fact) for i, fact in enumerate(facts)]
    while count < body:
        left = body - count
        if due and due[0][0] <= count and left >= 2 and left % 2 == 0:
            fact = due.pop(0)[1]
            script += [_Said("user", fact.say), _Said("assistant", _NOTED["zh" if _is_zh(fact.say) else "en"])]
            count += 2
            continue
        zh = rng.random() < 0.6
        lang = "zh" if zh else "en"
        order = rng.choice(orders)
        if left % 2 == 1:  # two messages from the customer in a row, then an answer
            ask, answer = rng.choice(_TALK[lang])
            script += [_Said("user", "在吗" if zh else "hello?"), _Said("user", ask), _Said("assistant", answer)]
            count += 3
        elif left >= 4 and rng.random() < 0.2:
            tool = rng.choice(["lookup_order", "track_shipment"])
            shipment = order.shipment
            answer = _ANSWER[lang].format(n=order.number, s=order.status, c=shipment.carrier, e=shipment.eta)
            script += [
                _Said("user", rng.choice(_ASK[lang]).format(n=order.number)),
                _ToolStep(tool, {"order_number": order.number}, order.customer_id, lang),
                _Said("assistant", answer),
            ]
            count += 4
        else:
            ask, answer = rng.choice(_TALK[lang])
            script += [_Said("user", ask), _Said("assistant", answer)]
            count += 2
    script.append(_Said("user", "好的，那就这样，谢谢" if rng.random() < 0.6 else "alright, that's all, thanks"))
    return script


def _is_zh(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def _expand(script: list[_Step], call_ids: Iterator[int]) -> Iterator[tuple[Entry, str | None]]:
    """The script's messages as working-memory entries (a tool step becomes a call and its real result)."""
    for step in script:
        if isinstance(step, _Said):
            yield Entry.create(Role(step.role), step.text, timestamp=clock.now()), None
            continue
        call = ToolCall(f"call_{next(call_ids)}", step.tool, json.dumps(step.arguments))
        yield Entry.create(Role.TOOL_CALL, "", timestamp=clock.now(), tool_calls=[call]), None
        buffer = WorkingMemory.from_settings()
        buffer.append_tool_call([call])
        result = run_tool(ToolContext(step.customer, uuid.uuid4(), step.lang), step.tool, step.arguments)
        yield results_in_memory.append(buffer, call.id, step.tool, step.arguments, result, llm.summarise)


def session_compression(p: CompressionParams | None = None, report: Progress = quiet) -> SessionCompression:
    """Tokens of a long session before and after compression, as the agent would load it into working memory."""
    p = p or CompressionParams()
    rng = random.Random(p.seed)
    store = SessionStore()
    started = time.perf_counter()
    conversation_id = None
    try:
        with scratch():
            customer = make_customers(1, "session", languages=("zh-hans",))[0]
            shop = ScratchShop(rng)
            orders = [shop.order(customer, rng.random() < 0.6, items=1, events=2) for _ in range(6)]
            bought = [shop.order(customer, False, items=1, events=2, status="delivered").number for _ in range(25)]
            facts = long_facts.planted_facts("en", bought)
            conversation_id = store.start(customer).id
            script = _session_script(rng, orders, p.messages, facts)
            for appended, (entry, raw) in enumerate(_expand(script, iter(range(1, 10**6))), start=1):
                store.append(conversation_id, entry, raw=raw)
                # After every message, as tests/memory/test_compression.py does (the turn queues it as a task).
                store.compress(conversation_id)
                report("session compression", appended, p.messages)
            rows = ConversationMessage.objects.filter(conversation_id=conversation_id).order_by("seq")
            everything = [
                Entry(
                    Role(m.role),
                    m.content,
                    m.created_at,
                    m.token_count,
                    tool_calls=_calls(m.metadata),
                    tool_call_id=m.metadata.get("tool_call_id"),
                )
                for m in rows
            ]
            history = store.history(conversation_id)
            summaries = list(CompressionSummary.objects.filter(conversation_id=conversation_id))
            system = prompts.system_prompt("zh", clock.now(), "Scratch")
            before = _working_tokens(system, everything, budget=10**9)
            after = _working_tokens(system, history, budget=settings.MEMORY_WORKING_BUDGET_TOKENS)
            answered = [_answered_at_end(system, history, fact) for fact in facts]
    finally:
        if conversation_id is not None:
            store.redis.delete(*SessionKeys.of(conversation_id).all())
    tokens_before, tokens_after = sum(e.tokens for e in everything), sum(e.tokens for e in history)
    return SessionCompression(
        facts_asked=len(facts),
        facts_answered=sum(answered),
        facts_missed=[fact.question for fact, ok in zip(facts, answered, strict=True) if not ok],
        messages=len(everything),
        tokens_before=tokens_before,
        tokens_after=tokens_after,
        working_memory_before=before,
        working_memory_after=after,
        summaries=len(summaries),
        summarised_messages=sum(s.last_seq - s.first_seq + 1 for s in summaries),
        summaries_tokens_before=sum(s.tokens_before for s in summaries),
        summaries_tokens_after=sum(s.tokens_after for s in summaries),
        verbatim_messages=len(history) - (1 if summaries else 0),
        system_prompt_tokens=count_tokens(system),
        reduction=round(tokens_after / tokens_before - 1, 4),
        seconds=round(time.perf_counter() - started, 1),
    )


def _answered_at_end(system: str, history: list[Entry], fact: long_facts.PlantedFact) -> bool:
    """Ask the model for ``fact`` at the end of the session, with the history the agent would send.

    The question is asked on its own (not appended to the session); a tool call naming the value
    (``lookup_order`` with the right number) counts as knowing it.
    """
    buffer = WorkingMemory.from_settings()
    buffer.set_system(system)
    buffer.extend(history)
    buffer.append_user(fact.question)
    completion = llm.chat(buffer.to_messages(), schemas([n for n in TOOLS if n != "recall_memory"]))
    said = completion.content + " ".join(json.dumps(c.arguments, ensure_ascii=False) for c in completion.tool_calls)
    return fact.expect in said


def _calls(metadata: Mapping[str, Any]) -> tuple[ToolCall, ...]:
    return tuple(ToolCall(**call) for call in metadata.get("tool_calls", ()))


def _working_tokens(system: str, history: list[Entry], *, budget: int) -> int:
    """Tokens of working memory built as the agent builds it: system prompt, history, the latest message."""
    buffer = WorkingMemory(budget)
    buffer.set_system(system)
    buffer.extend(history[:-1])
    buffer.append_user(history[-1].content)
    return buffer.usage().used
