"""One turn of the agent, the only place where the three memory tiers meet: ``run_turn`` reads top to bottom,
from loading the session (short-term memory) and recalling (long-term memory) through building working memory
and the model and tool loop to appending the reply, recording transitions and queueing consolidation. It is
blocking code and runs in the consumer's bounded thread pool, never on the event loop. See README.md ("The
agent turn") and docs/agent.md.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import logging
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ParamSpec, cast
from uuid import UUID

from django.conf import settings
from django.db import connection
from django.db.models import Model

from agentsite import clock, llm, timings
from agentsite.redaction import redact
from chat import actions, commitments, handoff, prompts, tool_results
from chat.answers import (
    agrees_only_loosely,
    answers_on_a_condition,
    asks_for_the_whole,
    asks_only_what_waits,
    asks_or_offers,
    confirmation_then_more,
    currencies_named,
    declined_then_asked,
    declines_all,
    declines_the_kind,
    final_answer,
    gives_another_value,
    in_simplified,
    is_bare_confirmation,
    is_cancellation,
    is_confirmation,
    keeps_it_as_it_is,
    names_another_kind,
    names_order,
    names_the_change,
    names_the_kind,
    offers_a_change,
    offers_a_person,
    opens_with_a_bare_no,
    opens_with_a_no,
    picks_another,
    says_already_so,
    says_nothing_changes,
    sets_the_order_aside,
    taken_back,
    what_waits_and_more,
)
from chat.models import Commitment, CustomerProfile, OrderItem, PendingAction
from chat.tool_results import JSONObject
from chat.tools import (
    CHANGED_KEY,
    MOVES_MONEY,
    NEEDS_A_CLEAR_YES,
    TOOLS,
    ToolContext,
    ask_again,
    asked_again,
    asks_for_some_of_the_order,
    cancel_pending,
    cancel_queued,
    cancel_queued_of,
    confirm_pending,
    drop_for_part,
    hold,
    lapse,
    lapses_with_this_message,
    propose_next,
    queued_changes,
    replaced,
    run_tool,
    schemas,
    waiting_action,
)
from memory import locks, working
from memory import session as short_term
from memory.consolidation import needs_consolidation
from memory.keys import SHOP_OWNED
from memory.longterm import learned_in
from memory.models import Conversation
from memory.recall import (
    RecallAhead,
    Recalled,
    confidence_tag,
    format_memory_block,
    recall,
    signals_missing_memory,
)
from memory.states import AgentState, bot_may_reply
from memory.working import Entry, PinnedOverflow, Role, ToolCall, WorkingMemory

logger = logging.getLogger(__name__)

Emit = Callable[[JSONObject], None]  # a frame for the customer's socket
ORDER_NUMBER = re.compile(r"\bORD-\d{4}-\d{4}\b", re.IGNORECASE)
BEFORE_PROCESSING = {AgentState.GREETING, AgentState.COLLECTING_INFO, AgentState.CONFIRMING}
_P = ParamSpec("_P")


class NotYourConversation(Exception):
    """The conversation belongs to another customer."""


@dataclass
class TurnResult:
    """What a turn produced (the consumer sends ``reply_done`` from it)."""

    reply: str
    message_id: int | None
    state: str
    recalled: list[Recalled] = field(default_factory=list)
    escalated: bool = False
    failed: bool = False
    language: str = ""  # the reply's language (prompts.language_of), "" if the turn ended before it was known
    timings: dict[str, float] = field(default_factory=dict)  # milliseconds per phase, see _timed_turn
    cpu_timings: dict[str, float] = field(default_factory=dict)  # this thread's CPU milliseconds per phase


@dataclass(frozen=True)
class Speaker:
    """What the turn needs of the customer's profile: the name the prompt uses, the preferred language, and
    the shop's record of each shop-owned key (``memory.keys.SHOP_OWNED``), the truth the memory block shows,
    with the email and phone number on the customer's account under ``email`` and ``phone_number``: no change
    of the agent's sets them, but they are the shop's record, never what memory says they are."""

    display_name: str
    language: str
    records: dict[str, str] = field(default_factory=dict)
    has_promises: bool = False  # open promises of the shop, or closed lately: the turn reads them

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> Speaker:
        """The columns ``_LOCK_AND_PROFILE`` reads after the lease: name, language, the shop-owned values, the
        account's phone number and email, promises."""
        values = {**dict(zip(SHOP_OWNED, row[2:-3], strict=True)), "phone_number": row[-3], "email": row[-2]}
        return cls(row[0], row[1], {key: value for key, value in values.items() if value}, bool(row[-1]))


_PROFILE_COLUMNS = {f.name: f.column for f in CustomerProfile._meta.concrete_fields}  # SHOP_OWNED names fields
_USERS = cast("type[Model]", CustomerProfile._meta.get_field("user").related_model)._meta.db_table  # its email
_LOCK_AND_PROFILE = (
    f"WITH {locks.TAKE_CTE} SELECT EXISTS (SELECT 1 FROM taken), p.display_name, p.language, "
    + ", ".join(f"p.{_PROFILE_COLUMNS[name]}" for name in SHOP_OWNED.values())
    + f", p.{_PROFILE_COLUMNS['phone']}"
    + f", (SELECT u.email FROM {_USERS} u WHERE u.id = p.user_id)"
    + f", EXISTS (SELECT 1 FROM {Commitment._meta.db_table} c WHERE c.customer_id = p.user_id"
    " AND (c.status IN ('open', 'overdue') OR c.closed_at >= %s))"
    f" FROM (SELECT 1) AS one LEFT JOIN {CustomerProfile._meta.db_table} p ON p.user_id = %s"
)  # noqa: S608 - constant SQL, every value a parameter


@contextlib.contextmanager
def turn_lock(conversation_id: UUID | str, customer_id: int | None = None) -> Iterator[Speaker | None]:
    """One turn at a time per conversation, across sockets and processes: a lease (``memory.locks``), which
    holds through a pool in transaction mode and pins no connection while the model answers.

    Yields the customer's ``Speaker`` (``None`` without a profile), read in the lease's round trip: a
    round trip inside a turn costs more than the read itself (docs/bench.md).
    """
    lease = locks.Lease(f"turn:{conversation_id}")
    row: Sequence[Any] = ()  # the profile's columns, as _LOCK_AND_PROFILE selects them

    def try_take() -> bool:
        nonlocal row
        with connection.cursor() as cursor:
            cursor.execute(_LOCK_AND_PROFILE, [*lease.take_parameters(), commitments.recent_since(), customer_id])
            taken, *row = cursor.fetchone()
        return lease.taken(taken)

    locks.wait_until_taken(try_take)
    try:
        yield Speaker.from_row(tuple(row)) if row[0] is not None else None
    finally:
        lease.give_back()


def _timed_turn(turn: Callable[_P, TurnResult]) -> Callable[_P, TurnResult]:
    """Fill ``TurnResult.timings`` (and ``cpu_timings``): exclusive milliseconds per phase (``agentsite.timings``).

    Phases: ``short_term`` (session store calls: Redis, and PostgreSQL for the durable copy),
    ``embedding`` (the query's), ``recall`` (its SQL), ``working_memory`` (building the prompt),
    ``model`` and ``tools`` (not the memory layer), and ``bookkeeping``: everything else (the turn
    lock, state transitions, access statistics, the inspector's frame, queueing consolidation).
    """

    @functools.wraps(turn)
    def timed(*args: _P.args, **kwargs: _P.kwargs) -> TurnResult:
        with timings.collect("bookkeeping") as spent:
            result = turn(*args, **kwargs)
        result.timings, result.cpu_timings = spent.milliseconds(), spent.cpu_milliseconds()
        return result

    return timed


_recall = timings.timed("recall")(recall)
_summarise = timings.timed("model")(llm.summarise)


def _drops_it(text: str, waiting: PendingAction, speaker: Speaker | None) -> bool:
    """A no to the waiting change, unless it picks another order for it ("no, the water bottles one") or gives
    another value than the record's ("no, i said 12 Oak Street…"): the model then asks that, and the change it
    proposes takes the waiting one's place."""
    proposal = {**waiting.arguments, "summary": waiting.summary}
    current = speaker.records.get(CHANGED_KEY.get(waiting.tool, ("", ""))[0]) if speaker else None
    return (
        is_cancellation(text)
        and not _about_another(text, waiting)
        and not picks_another(text, proposal)
        and not gives_another_value(text, proposal, current)
    )


def _about_another(text: str, waiting: PendingAction) -> bool:
    """Whether a message is about another change than the waiting one, not naming it: another kind ("不要改联系方式
    了" while a mute waits) or another of the customer's orders ("cancel the tent thing" while an address change
    waits): a no in it is not the waiting change's."""
    if names_another_kind(text, waiting.tool):
        return True
    if names_the_kind(text, waiting.tool):
        return False
    own = waiting.arguments.get("order_number")
    items: dict[str, list[str]] = {}
    for number, name in OrderItem.objects.filter(order__customer_id=waiting.customer_id).values_list(
        "order__number", "name"
    ):
        items.setdefault(number, []).append(name)
    named = {number for number, names in items.items() if names_order(text, number, " ".join(names))}
    return bool(named) and own not in named


def _asks_part_of_it(text: str, waiting: PendingAction) -> bool:
    """Whether the answer to a full refund proposed asks for part of its money ("make it half", "退一半就行",
    "yes, 50 of it"), not naming another order: the full refund is then no longer what the customer wants."""
    if waiting.tool != "request_refund" or asks_for_the_whole(text):
        return False
    if not asks_for_some_of_the_order(text, waiting.customer_id, str(waiting.arguments.get("order_number", ""))):
        return False  # "make it half", "just one of the three bottles"
    return not (picks_another(text, {**waiting.arguments, "summary": waiting.summary}) or _about_another(text, waiting))


def _asks_another_currency(text: str, waiting: PendingAction) -> bool:
    """Whether the answer to a refund proposed asks for the money in another currency than the order's ("唔該，係嘅，
    不過退返港幣俾我", "yes, but pay it back in euros"): the refund proposed is then not what the customer wants."""
    paid_in = str(waiting.shown.get("currency") or "")
    return waiting.tool == "request_refund" and bool(paid_in) and bool(currencies_named(text) - {paid_in})


def _part_asked(
    store: short_term.SessionStore,
    ctx: ToolContext,
    waiting: PendingAction,
    emit: Emit,
    wording: dict[str, str] = prompts.PART_ASKED,
) -> TurnResult:
    """Part of the waiting full refund's money asked (or in another currency, ``wording`` says which): the full
    refund dropped (``tools.drop_for_part``: proposed again only when the whole is asked for), a colleague offered,
    and the next change asked proposed."""
    _drop(store, ctx, drop_for_part)
    language = ctx.language
    said = actions.proposed(waiting.tool, {**waiting.arguments, **waiting.shown}, language)  # in this turn's words
    reply = wording[language].format(summary=said)
    following = propose_next(ctx)
    if following is not None and "error" not in following:
        reply += "\n" + prompts.NEXT_PROPOSED[language].format(summary=following["summary"])
    return _finish(store, ctx, reply, [], None, emit, stream=True)


def _keeps_it_as_it_is(text: str, waiting: PendingAction, speaker: Speaker | None) -> bool:
    """``answers.keeps_it_as_it_is`` for the waiting change, against the record of the key it would set."""
    key, argument = CHANGED_KEY.get(waiting.tool, ("", ""))
    current = speaker.records.get(key) if speaker else None
    return keeps_it_as_it_is(text, waiting.tool, current, waiting.arguments.get(argument))


@_timed_turn
def run_turn(customer_id: int, conversation_id: UUID | str, text: str, emit: Emit = lambda frame: None) -> TurnResult:
    """Answer one customer message in one conversation."""
    # Timed passes every call on to the store (timing it): the store's methods, as the store types them.
    store = cast(short_term.SessionStore, timings.Timed(short_term.store(), "short_term"))
    mode = settings.MEMORY_RECALL_MODE
    # Active recall starts now, beside the lock and the first writes; it is read at step 3.
    ahead = RecallAhead(customer_id, text) if mode == "active" else contextlib.nullcontext()
    with ahead, turn_lock(conversation_id, customer_id) as speaker, short_term.observing_transitions() as transitions:
        # 1. Short-term memory: the session, and the customer's message, stored before anything can fail
        #    (with its slots and the state it moves to: one transaction, one MULTI/EXEC).
        session = store.load(conversation_id, recent=store.max_messages, since_summary=True)
        if session.customer_id != customer_id:
            raise NotYourConversation(str(conversation_id))
        emit = _with_state_frames(emit, transitions)
        # text that tells no language ("yes please", "确认") is answered in the language of what it answers
        spoken = "en" if speaker and speaker.language == "en" else "zh"
        language = prompts.language_of(text, default=prompts.language_of(_last_reply(session), default=spoken))
        with store.batch(conversation_id, expected=session) as conversation:  # one statement, if nobody else wrote
            store.append(conversation_id, _entry(Role.USER, redact(text)))
            progress = bool(store.update_info(conversation_id, _slots(text)))
            if bot_may_reply(session.state):
                store.transition(
                    conversation_id,
                    AgentState.COLLECTING_INFO,
                    "the customer wrote",
                    progress=progress,
                    only_from={AgentState.GREETING, AgentState.RESOLVED},
                )
        if not bot_may_reply(session.state):
            emit({"type": "notice", "text": prompts.WAITING_FOR_STAFF[language]})
            return TurnResult(reply="", message_id=None, state=session.state, language=language)
        ctx = ToolContext(customer_id, conversation_id, language, store, said=in_simplified(text))
        if conversation.state == AgentState.ESCALATED:  # loop detection escalated on the customer's message
            return _hand_over(ctx, [], emit)

        # 2. A pending change is confirmed or declined by the customer, never by the model, and only while
        #    the conversation waits for it and it is fresh; a stale one lapses and changes nothing.
        waiting, lapsed = waiting_action(conversation_id, confirming=session.state == AgentState.CONFIRMING)
        as_written = text  # the whole message: whether it sets the waiting change's order aside (_set_aside)
        if waiting is not None and (named := _taken_back_by_name(store, ctx, waiting, in_simplified(text), emit)):
            return named  # "forget the backpack, just the water bottles": the backpack's change, whichever waits
        if asks_only_what_waits(in_simplified(text)):  # "what's pending?": the change itself, never the model's guess
            if waiting is not None:
                return _ask_about_alone(store, ctx, waiting, prompts.WAITS_NOW, emit)
            nothing = _with_notice(prompts.NOTHING_WAITS[language], lapsed, prompts.LAPSED, language)
            return _finish(store, ctx, nothing, [], None, emit, stream=True)
        if waiting is not None:  # "no wait, actually yes": the answer the customer ended on is the answer
            text = final_answer(in_simplified(text), {**waiting.arguments, "summary": waiting.summary})
        history = store.history_of(session)
        # Said before the model's answer: a no, then a question or request ("no, leave it. What's …?"); or that
        # nothing waits, asked beside other things ("what's pending? and where is my backpack?")
        said_first = ""
        if rest := what_waits_and_more(in_simplified(text)):  # the model answers the rest, never that question
            text = rest  # a change that waits is named after the reply (ON_HOLD), one that lapsed too
            said_first = prompts.NOTHING_WAITS[language] if waiting is None else ""
        proposed_next: PendingAction | None = None  # the change asked for after the declined one, proposed with it
        if waiting is not None and _asks_part_of_it(text, waiting):
            return _part_asked(store, ctx, waiting, emit)  # "make it half": never the whole one "yes" away
        if waiting is not None and _asks_another_currency(text, waiting):
            return _part_asked(store, ctx, waiting, emit, prompts.OTHER_CURRENCY_ASKED)  # "…退返港幣俾我"
        split = declined_then_asked(text, waiting.tool) if waiting is not None else None
        if split is None and waiting is not None:  # "短信那个可以，通知先别关": the waiting mute, said not to be made
            split = declines_the_kind(text, waiting.tool)
            if split is None:  # "phone is fine but dont mute the notifications after all": the mute asked for next
                cancel_queued_of(ctx, lambda change: declines_the_kind(text, change.tool) is not None)
        if split is not None and not split[1]:
            return _decline(store, ctx, emit, every=declines_all(split[0]))  # "no X. but yes to Y": Y proposed next
        if split is not None:
            (no, text), waiting = split, None
            said_first = _drop_and_say(store, ctx, every=declines_all(no))
            history += [_entry(Role.USER, redact(no)), _entry(Role.ASSISTANT, said_first)]  # the model sees it is gone
            proposed_next = waiting_action(conversation_id, confirming=True)[0]
        elif waiting is not None and (_drops_it(text, waiting, speaker) or _keeps_it_as_it_is(text, waiting, speaker)):
            return _decline(store, ctx, emit, every=declines_all(text))
        # a no that names what the customer wants instead ("唔係，改做微信啦"): the model proposes that, which takes
        # the waiting change's place; if it proposes nothing, the change said no to waits no longer either
        said_no = (
            waiting is not None
            and opens_with_a_no(text)
            # "cancel the tent thing" while an address change waits is about the tent; "不，改成0901的一半吧" is a no
            and (opens_with_a_bare_no(text) or not _about_another(text, waiting))
        )
        if waiting is not None and answers_on_a_condition(text, waiting.tool):
            # "yes, but only once my backpack arrives", "谢谢，前提是还没发货的话就退"
            return _ask_about_alone(store, ctx, waiting, prompts.YES_ON_A_CONDITION, emit)
        loosely = waiting is not None and agrees_only_loosely(
            text,
            after_something_else=bool(waiting.interruptions),
            proposal={**waiting.arguments, "summary": waiting.summary},
        )
        if waiting is not None and (waiting.interruptions or waiting.tool in NEEDS_A_CLEAR_YES) and loosely:
            # The last reply answered something else and only named the change: "ok" may acknowledge that
            # answer. Money moves, and an address changes, only on a word that confirms on its own ("确认", "yes"),
            # never on a casual "ok" or "嗯". Ask for a yes that answers the change, and only it: it waits on,
            # uncounted.
            return _ask_about_alone(store, ctx, waiting, prompts.ON_HOLD, emit)
        more = ""  # a request after the yes ("yes go ahead, and also switch me to SMS"): the model's message
        if waiting is not None:  # a value the answer names must be the waiting change's
            proposal = {**waiting.arguments, "summary": waiting.summary}
            confirms = is_confirmation(text, proposal)
            if not confirms and (split := confirmation_then_more(text, proposal)):
                yes, more = split
                confirms = not (waiting.tool in NEEDS_A_CLEAR_YES and agrees_only_loosely(yes))
                more = more if confirms else ""
        else:  # "yes, mute my notifications" with nothing waiting is a request for the model
            confirms = is_bare_confirmation(in_simplified(text))
        person_offered = offers_a_person(_last_reply(session))
        if (
            waiting is not None
            and confirms
            and (
                # "确认" after "…I can pass you to one. (Still waiting for your confirmation: …)": which one it answers
                # is not said, unless it names the change's kind.
                (person_offered and not names_the_kind(text, waiting.tool))
                # Something else was talked about since the proposal, and the reply to it may have asked or offered
                # something of its own: a yes naming no change may answer that. Unless the reply asked nothing
                # and ended naming the change ("Reply 'yes' to go ahead"): the yes answers that.
                or (
                    waiting.interruptions
                    and not names_the_change(text, waiting.tool)
                    and not _only_the_change_asked(session, waiting)
                )
            )
        ):
            return _ask_about_alone(store, ctx, waiting, prompts.ASKED_AGAIN, emit)  # a yes to that confirms it
        confirmed = confirm_pending(ctx) if waiting is not None and confirms else None
        # "yes" takes up a colleague offered, or a change offered to be set out (proposed, for a yes of its own);
        # not after a change lapsed: the yes meant that one, which is never proposed again on it
        offered = waiting is None and (person_offered or (offers_a_change(_last_reply(session)) and not lapsed))
        if confirmed is None and confirms and not offered:  # "yes" to nothing: say so, and change nothing
            reply = _with_notice(prompts.NOTHING_PENDING[language], lapsed, prompts.LAPSED, language)
            return _finish(store, ctx, reply, [], None, emit, stream=True)
        held = waiting if confirmed is None else None  # another request while a change waits
        lapsing = None  # the change this other request lapses: decided before the model answers, which is told
        if held is not None and lapses_with_this_message(held):
            lapsing, held = lapse(held), None

        # 3. Long-term memory: recall before answering (active mode) or only when needed (deferred);
        #    "off" reads nothing from it (the evaluation's baseline: only this conversation is known).
        recalled = ahead.result() if isinstance(ahead, RecallAhead) else []

        # 4. Working memory: system prompt, memory block, compressed history (read with the session),
        #    this message.
        records = speaker.records if speaker and mode != "off" else {}  # "off" knows this conversation only
        if confirmed is not None and more and records:  # "确认。现在联系方式是啥？": the record the yes just changed
            records = _records_now(customer_id, records)
        promises = commitments.for_turn(customer_id) if speaker and speaker.has_promises and mode != "off" else []
        shop_lines = [commitments.record_line(p, language) for p in promises]
        told_lapsed = [_with_notice("", lapsing, prompts.LAPSED_NOTE, language)] if lapsing is not None else []
        text = more or text
        block_lines = shop_lines + told_lapsed
        buffer = _working_memory(history, text, language, recalled, speaker, records, block_lines)
        memory = _Memory(buffer, conversation, records, shop_lines)
        if said_first:
            memory.told = said_first
            emit({"type": "token", "text": said_first + "\n"})
            _record_told(store, memory, ctx)
        if confirmed is not None:
            if more:  # the change a yes made, said by us: the model's reply is about the request after it
                memory.told = _outcome(confirmed, language)
                confirmed["told"] = True  # the model need not say it again
                emit({"type": "token", "text": memory.told + "\n"})
            _record_confirmation(store, memory, ctx, confirmed)

        # 5. The model, with tools, bounded; the reply streams to the customer as it is generated.
        tools = schemas([name for name in TOOLS if mode == "tool" or name != "recall_memory"])
        try:
            if mode == "deferred":
                reply, recalled = _deferred(store, memory, ctx, tools, customer_id, text, language, emit)
            else:
                reply = _model_loop(store, memory, ctx, tools, emit)
        except (llm.LLMError, PinnedOverflow) as exc:
            logger.warning("turn in conversation %s failed: %s", conversation_id, exc)
            if memory.streamed or memory.told:  # the customer saw the start of a reply that is not kept: take it back
                emit({"type": "reply_reset"})
            apology = _with_notice(prompts.APOLOGY[language], lapsing, prompts.LAPSED, language)
            result = _finish(store, ctx, apology, recalled, memory, emit, stream=True, expected=memory.snapshot)
            result.failed = True
            return result

        # 6. Short-term memory again: the reply (naming a change that still waits, or lapsed), and the state
        #    it leaves the conversation in; unless a person was asked for, and the bot falls silent.
        move = (AgentState.RESOLVED, "answered", {AgentState.PROCESSING}) if memory.used_tools else None
        held_before = held
        # told no change will be made: none waits for a yes (unless the no was to another change: _about_another)
        if held is not None and says_nothing_changes(reply) and not _about_another(as_written, held):
            cancel_pending(ctx)
            held = None
        # "请将通知重新打开" while a mute waits, and the record is on: what the customer asks holds already, so the
        # change that waits is no longer wanted; never kept for a yes that would undo their last word
        held_already = None
        if held is not None and says_already_so(reply) and names_the_kind(in_simplified(as_written), held.tool):
            held_already, held = cancel_pending(ctx), None
        said_no_to = None
        waits = PendingAction.objects.filter(pk=held.pk, status=PendingAction.Status.PENDING) if held else None
        if held is not None and said_no and waits is not None and waits.exists():
            said_no_to, held = cancel_pending(ctx), None  # still the one waiting: nothing took its place
        still_waiting, lapsed_now = hold(held) if held is not None else (None, lapsing)
        # "我说错了，是绿茶那一单" that no proposal for that order answered: the order set aside waits no longer,
        # held or proposed again
        set_aside = _set_aside(ctx, held_before, in_simplified(as_written)) if held_before is not None else None
        if set_aside is not None:
            still_waiting = held = None
        if set_aside is not None and held_before is not None and set_aside.pk != held_before.pk:
            # the model proposed the order set aside anew: its question is void, only the notice is said
            emit({"type": "reply_reset"})
            reply, wording_aside = "", prompts.SET_ASIDE_PROPOSED_AGAIN
        else:
            wording_aside = prompts.SET_ASIDE
        if lapsed_now is not None and asked_again(lapsed_now):
            lapsed_now = None  # the same change proposed anew this turn: its question says what waits
        dropped = held if held is not None and still_waiting is None and lapsed_now is None and replaced(held) else None
        gone = lapsed or lapsed_now  # lapsed before this message (a new login) or with it
        if gone is not None and asked_again(gone):
            gone = None  # the same change proposed anew this turn: its question says what waits
        notices = _with_notice(
            _with_notice("", gone, prompts.LAPSED, language), still_waiting, prompts.ON_HOLD, language
        )
        notices = _with_notice(
            _with_notice(notices, dropped, prompts.REPLACED, language), set_aside, wording_aside, language
        )
        notices = _with_notice(notices, held_already, prompts.HELD_ALREADY, language)
        notices = _with_notice(notices, said_no_to, prompts.SAID_NO_TO, language)
        if notices:
            emit({"type": "token", "text": f"\n{notices}" if reply else notices})
            reply = f"{reply}\n{notices}" if reply else notices
        pending = PendingAction.Status.PENDING
        if proposed_next is not None and PendingAction.objects.filter(pk=proposed_next.pk, status=pending).exists():
            still_waiting = proposed_next  # asked about in this reply already ("…shall I go ahead?"): it waits on
        if still_waiting is not None:
            move = (
                AgentState.CONFIRMING,
                "waiting for confirmation again",
                {AgentState.PROCESSING, AgentState.COLLECTING_INFO},
            )
        return _finish(store, ctx, reply, recalled, memory, emit, stream=False, move=move, expected=memory.snapshot)


class _Memory:
    """Working memory plus what this turn did to it.

    ``snapshot`` is the conversation row as this turn's last batch left it. The turn holds the
    conversation's lock, so its next batch is decided on it (``SessionStore.batch(expected=)``): one
    statement, made again under the row lock only if someone else (staff) wrote meanwhile. ``None``
    after a tool that changes something: that write takes the row lock.
    """

    def __init__(
        self, buffer: WorkingMemory, snapshot: Conversation | None, records: dict[str, str], promises: list[str]
    ) -> None:
        self.buffer = buffer
        self.snapshot = snapshot
        self.records = records  # the shop's values of its shop-owned keys, for the memory block
        self.promises = promises  # what the shop promised the customer, worded, for the memory block
        self.used_tools = False
        self.streamed = False  # some of a reply went to the customer as tokens
        self.proposed = ""  # the change this turn proposed, if any: a second one waits for its answer
        self.told = ""  # what a yes with more after it changed, said and stored as its own message
        self.told_seq: int | None = None


def _set_aside(ctx: ToolContext, held: PendingAction, text: str) -> PendingAction | None:
    """The change ``held`` waited for, dropped when ``text`` picks another order for it and what waits now (after
    the model) is still that order's: a yes meant for the order named never confirms the one set aside."""
    if not sets_the_order_aside(text, {**held.arguments, "summary": held.summary}):
        return None
    now = PendingAction.objects.filter(conversation_id=ctx.conversation_id, status=PendingAction.Status.PENDING).first()
    if now is None or now.tool != held.tool or now.arguments.get("order_number") != held.arguments.get("order_number"):
        return None
    cancel_pending(ctx)
    return now


def _taken_back_by_name(
    store: short_term.SessionStore, ctx: ToolContext, waiting: PendingAction, text: str, emit: Emit
) -> TurnResult | None:
    """Of several changes waiting, drop those the message takes back by name (``answers.taken_back``): the
    proposed one among them is declined as any no declines it; else it is asked again alone. ``None`` when the
    message names none apart, or drops every change."""
    changes = [waiting, *queued_changes(ctx)]
    named = taken_back(text, [{"tool": c.tool, "arguments": c.arguments, "summary": c.summary} for c in changes])
    if not named or declines_all(text):
        return None
    dropped = {changes[i].pk for i in named}
    cancel_queued_of(ctx, lambda change: change.pk in dropped)
    if 0 in named:
        return _decline(store, ctx, emit)
    ask_again(waiting)
    said = [actions.proposed(c.tool, {**c.arguments, **c.shown}, ctx.language) for c in changes if c.pk in dropped]
    joined = ("；" if ctx.language == "zh" else "; ").join(said)
    wording = {lang: phrase.replace("{dropped}", joined) for lang, phrase in prompts.DROPPED_ANOTHER.items()}
    return _finish(store, ctx, _with_notice("", waiting, wording, ctx.language), [], None, emit, stream=True)


def _ask_about_alone(
    store: short_term.SessionStore, ctx: ToolContext, waiting: PendingAction, wording: dict[str, str], emit: Emit
) -> TurnResult:
    """Name the waiting change alone (``wording``) and end the turn: the customer's next answer answers it,
    whatever came between."""
    ask_again(waiting)
    return _finish(store, ctx, _with_notice("", waiting, wording, ctx.language), [], None, emit, stream=True)


def _with_notice(reply: str, action: PendingAction | None, wording: dict[str, str], language: str) -> str:
    """``reply`` followed by the notice ``wording`` naming ``action`` (none without an action)."""
    if action is None:
        return reply
    values = {**action.arguments, **action.shown}  # named as proposed: "a refund of $320.00 … (Tent)"
    notice = wording[language].format(summary=actions.proposed(action.tool, values, language))
    return f"{reply}\n{notice}" if reply else notice


def _only_the_change_asked(session: short_term.Session, action: PendingAction) -> bool:
    """Whether the last reply ended with the notice that ``action`` still waits ("Reply 'yes' to go ahead") after
    answering a request about something else, and asked nothing of its own: a bare "yes" then answers the change.
    Never for money, nor after a request about the same kind of change ("could I get 100 back instead?")."""
    asked = next((m.content for m in reversed(session.messages) if m.role == Role.USER), "")
    if action.tool in MOVES_MONEY or names_the_kind(asked, action.tool):
        return False
    reply = _last_reply(session)
    for language in prompts.ON_HOLD:
        notice = _with_notice("", action, prompts.ON_HOLD, language)
        if reply.rstrip().endswith(notice):
            return not asks_or_offers(reply.rstrip()[: -len(notice)])
    return False


def _entry(role: Role, content: str) -> Entry:
    return Entry.create(role, content, timestamp=clock.now())


def _slots(text: str) -> dict[str, list[str]]:
    numbers = sorted({n.upper() for n in ORDER_NUMBER.findall(text)})
    return {"order_numbers": numbers} if numbers else {}


def _with_state_frames(emit: Emit, transitions: list[short_term.TransitionRecord]) -> Emit:
    """Wrap ``emit`` so that a ``state`` frame for every transition the turn recorded (tools and loop
    detection included) goes out just before the turn's closing frame."""
    sent = {"done": False}

    def wrapped(frame: JSONObject) -> None:
        if frame["type"] in {"memory", "escalated", "notice"} and not sent["done"]:
            sent["done"] = True
            for step in transitions:
                emit({"type": "state", "from": step.from_state.value, "to": step.to_state.value})
        emit(frame)

    return wrapped


@timings.timed("working_memory")
def _working_memory(
    history: list[Entry],
    text: str,
    language: str,
    recalled: list[Recalled],
    speaker: Speaker | None,
    records: dict[str, str],
    promises: Sequence[str] = (),
) -> WorkingMemory:
    """``history`` is the conversation before this message, which goes in unredacted for this one turn, pinned.
    The memory block shows the shop's ``records`` and ``promises`` first, whatever was recalled."""
    buffer = WorkingMemory.from_settings()
    buffer.set_system(prompts.system_prompt(language, clock.now(), speaker.display_name if speaker else ""))
    if recalled or records or promises:
        buffer.set_memory(format_memory_block(recalled, language, records, promises))
    buffer.extend(history)
    buffer.append_user(text)
    return buffer


def _record_confirmation(
    store: short_term.SessionStore, memory: _Memory, ctx: ToolContext, confirmed: JSONObject
) -> None:
    """Show the model what the confirmed change did, as the tool call it was and its result; and the change
    asked for after it, now proposed, as a second call of the same step (the model words both)."""
    calls = [_confirmed_call(confirmed)]
    results = [confirmed]
    with store.batch(ctx.conversation_id, expected=memory.snapshot) as saved:
        store.transition(
            ctx.conversation_id,
            AgentState.PROCESSING,
            "confirmed",
            progress=True,
            only_from={AgentState.CONFIRMING, AgentState.COLLECTING_INFO},
        )
        following = propose_next(ctx)
        if following is not None:
            calls.append(ToolCall(id=f"proposed-{calls[0].id}", name=following["action"], arguments="{}"))
            results.append(following)
        store.append(ctx.conversation_id, memory.buffer.append_tool_call(calls))
        for call, result in zip(calls, results, strict=True):
            raw = json.dumps(result, ensure_ascii=False)
            store.append(ctx.conversation_id, memory.buffer.append_tool_result(call.id, raw, _summarise), raw=raw)
        if memory.told:  # kept whatever the rest of the turn does (a handover silences the bot after it)
            memory.told_seq = store.append(ctx.conversation_id, _entry(Role.ASSISTANT, memory.told)).seq
    memory.snapshot = saved
    memory.used_tools = True


def _last_reply(session: short_term.Session) -> str:
    """The agent's latest reply in the session as loaded (empty if none)."""
    return next((m.content for m in reversed(session.messages) if m.role == Role.ASSISTANT), "")


def _outcome(confirmed: JSONObject, language: str) -> str:
    """What a confirmed change did, in the shop's words: done, or why it could not be."""
    if confirmed.get("error"):
        return prompts.CONFIRMED_REFUSED[language].format(reason=str(confirmed["error"]).rstrip("。."))
    return prompts.CONFIRMED_DONE[language].format(summary=str(confirmed.get("summary", "")).rstrip("。."))


def _confirmed_call(confirmed: JSONObject) -> ToolCall:
    """The confirmed change as a tool call, named by its action: two confirmations within one second of each
    other are still two calls."""
    return ToolCall(id=f"confirmed-{confirmed.pop('action')}", name=confirmed.pop("tool"), arguments="{}")


def _drop(
    store: short_term.SessionStore,
    ctx: ToolContext,
    cancel: Callable[[ToolContext], PendingAction | None] = cancel_pending,
) -> None:
    """Drop the waiting change the customer said no to (``cancel``: how; ``drop_for_part`` marks it)."""
    cancel(ctx)
    declined = {AgentState.CONFIRMING}
    store.transition(ctx.conversation_id, AgentState.COLLECTING_INFO, "declined", progress=False, only_from=declined)


def _record_told(store: short_term.SessionStore, memory: _Memory, ctx: ToolContext) -> None:
    """Keep what was said before the model's answer as its own message, whatever the rest of the turn does."""
    with store.batch(ctx.conversation_id, expected=memory.snapshot) as saved:
        memory.told_seq = store.append(ctx.conversation_id, _entry(Role.ASSISTANT, memory.told)).seq
    memory.snapshot = saved


def _records_now(customer_id: int, records: dict[str, str]) -> dict[str, str]:
    """``records`` with the shop-owned values as the profile holds them now (after a change the turn made)."""
    row = CustomerProfile.objects.filter(user_id=customer_id).values(*SHOP_OWNED.values()).first() or {}
    now = {key: str(row[field]) for key, field in SHOP_OWNED.items() if row.get(field)}
    return {**{key: value for key, value in records.items() if key not in SHOP_OWNED}, **now}


def _decline(store: short_term.SessionStore, ctx: ToolContext, emit: Emit, *, every: bool = False) -> TurnResult:
    """The customer said no to the waiting change: drop it, and say so."""
    reply = _drop_and_say(store, ctx, every=every, anything_else=True)
    return _finish(store, ctx, reply, [], None, emit, stream=True)


def _drop_and_say(
    store: short_term.SessionStore, ctx: ToolContext, *, every: bool = False, anything_else: bool = False
) -> str:
    """Drop the waiting change the customer said no to, and propose the one asked for after it, unless the no
    was to them all ("取消全部", "cancel both"). Returns what to say: that it was dropped (with "anything
    else?" when nothing else is answered), and what is proposed next."""
    if every:
        cancel_queued(ctx)
    _drop(store, ctx)
    following, language = propose_next(ctx), ctx.language
    if following is None and (stands := _made_here_stands(ctx)):
        # "yep, and switch me to SMS" … "no, undo that": the SMS is dropped, the refund the yes made stands
        return prompts.DROPPED_BESIDE_MADE[language].format(made=stands)
    if following is None:
        return (prompts.CANCELLED if anything_else else prompts.DROPPED)[language]
    if "error" in following:
        return prompts.CANCELLED_NEXT_REFUSED[language].format(error=following["error"])
    return prompts.CANCELLED_NEXT[language].format(summary=following["summary"])


def _made_here_stands(ctx: ToolContext) -> str:
    """The changes this chat made (the latest two), which a change dropped after them leaves as they are."""
    made = PendingAction.objects.filter(conversation_id=ctx.conversation_id, status=PendingAction.Status.DONE).order_by(
        "-decided_at"
    )[:_MADE_NAMED]
    said = [actions.proposed(a.tool, {**a.arguments, **a.shown}, ctx.language) for a in reversed(made)]
    return ("；" if ctx.language == "zh" else "; ").join(said)  # in this turn's language, whatever it was made in


_MADE_NAMED = 2  # the latest changes made in the chat named beside a dropped one


def _model_loop(
    store: short_term.SessionStore, memory: _Memory, ctx: ToolContext, tools: list[JSONObject], emit: Emit | None
) -> str:
    """Call the model until it answers in words, running the tools it asks for (bounded)."""
    on_token = _streaming(memory, emit) if emit is not None else None
    steps, sent_back = 0, 0
    while steps < settings.AGENT_MAX_TOOL_STEPS:
        messages = memory.buffer.to_messages()
        try:
            with timings.phase("model"):
                completion = llm.chat(
                    messages,
                    tools,
                    stream=emit is not None,
                    on_token=on_token,
                    conversation_id=str(ctx.conversation_id),
                )
        except llm.MalformedToolCalls as exc:
            if sent_back == _SEND_BACK_PER_TURN:
                raise
            sent_back += 1
            _send_back(memory.buffer, exc)
            continue
        steps += 1
        if not completion.tool_calls:
            return completion.content
        calls = [ToolCall(c.id, c.name, json.dumps(c.arguments, ensure_ascii=False)) for c in completion.tool_calls]
        call_entry = memory.buffer.append_tool_call(calls, completion.content or "")
        # A step that only reads stores its call with its first result, in one statement; a tool that
        # changes something finds its call stored before it runs (after a handoff the bot may store nothing).
        call_pending = all(_only_reads(call.name) for call in completion.tool_calls)
        if not call_pending:
            with store.batch(ctx.conversation_id, expected=memory.snapshot) as saved:
                _record_tool_call(store, ctx, call_entry, completion.tool_calls, bool(memory.proposed))
            memory.snapshot = saved
        # A handover goes last: after it the bot may store nothing, so the step's other calls run before it, and
        # the turn ends with it (``_finish`` hands over); the model is not called again.
        handing_over = False
        for call in sorted(completion.tool_calls, key=lambda c: c.name == "escalate_to_human"):
            # One pending change at a time: a second one in this message waits for the first one's answer.
            queue = bool(_proposes(call.name) and memory.proposed)
            tool_ctx = dataclasses.replace(ctx, queue_changes=True) if queue else ctx
            with timings.phase("tools"):
                result = run_tool(tool_ctx, call.name, call.arguments)
            if _proposes(call.name) and result.get("status") == "pending_confirmation":
                memory.proposed = str(result.get("summary", call.name))
            if not _only_reads(call.name):
                # A tool that changes something may have moved the conversation itself (a proposal, a
                # handoff): the turn's next write takes the row lock and goes on from the state it left.
                memory.snapshot = None
            entry, raw = tool_results.append(memory.buffer, call.id, call.name, call.arguments, result, _summarise)
            with store.batch(ctx.conversation_id, expected=memory.snapshot) as saved:  # each result kept as it comes
                if call_pending:
                    _record_tool_call(store, ctx, call_entry, completion.tool_calls, bool(memory.proposed))
                    call_pending = False
                store.append(ctx.conversation_id, entry, raw=raw)
            memory.snapshot = saved
            handing_over = handing_over or result.get("status") == "escalated"
        memory.used_tools = True
        if handing_over:
            return ""
    raise llm.LLMError(f"no answer after {settings.AGENT_MAX_TOOL_STEPS} tool steps")


# A step whose tool calls cannot run goes back to the model this many times a turn; the next fails the turn.
_SEND_BACK_PER_TURN = 1


def _send_back(buffer: WorkingMemory, refused: llm.MalformedToolCalls) -> None:
    """Show the model its step that could not run, each call answered with what was wrong, so it may call
    again. Only working memory holds them: nothing ran, and the stored history keeps calls that did."""
    calls = [ToolCall(c.id, c.name, c.arguments if _json_object(c.arguments) else "{}") for c in refused.calls]
    buffer.append_tool_call(calls, refused.content)
    for call in refused.calls:
        error = call.error or "not run: another call of the same step could not run"
        result = {"error": f"{error}. Nothing was done; call again with arguments that fit.", "not_run": True}
        buffer.append_tool_result(call.id, json.dumps(result, ensure_ascii=False), _summarise)


def _json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def _streaming(memory: _Memory, emit: Emit) -> Callable[[str], None]:
    """The model's ``on_token``: each piece of the reply goes to the customer as it comes."""

    def on_token(piece: str) -> None:
        memory.streamed = True
        emit({"type": "token", "text": piece})

    return on_token


def _record_tool_call(
    store: short_term.SessionStore,
    ctx: ToolContext,
    entry: Entry,
    tool_calls: Sequence[llm.ToolCall],
    proposed: bool = False,
) -> None:
    """Store the model's tool call; a tool that only reads means the agent is processing the request.

    Unless this turn ``proposed`` a change already: a lookup after it ("where is my parcel? also mute my
    notifications", answered in either order) leaves the conversation waiting for that change's answer, or
    the customer's "yes" would find nothing to confirm.
    """
    store.append(ctx.conversation_id, entry)
    for call in tool_calls:
        if _only_reads(call.name):
            store.transition(
                ctx.conversation_id,
                AgentState.PROCESSING,
                f"tool {call.name}",
                progress=True,
                only_from=BEFORE_PROCESSING - {AgentState.CONFIRMING} if proposed else BEFORE_PROCESSING,
            )


def _proposes(tool: str) -> bool:
    """Whether ``tool`` proposes a change the customer must confirm (the pending action)."""
    return tool in TOOLS and TOOLS[tool].changes_something


def _only_reads(tool: str) -> bool:
    """Whether calling ``tool`` means the agent is processing the request (not escalating, not proposing a change)."""
    return tool != "escalate_to_human" and not TOOLS.get(tool, TOOLS["lookup_order"]).changes_something


def _deferred(
    store: short_term.SessionStore,
    memory: _Memory,
    ctx: ToolContext,
    tools: list[JSONObject],
    customer_id: int,
    text: str,
    language: str,
    emit: Emit,
) -> tuple[str, list[Recalled]]:
    """Answer from working and short-term memory first (not streamed); recall only if that answer lacks something."""
    first = _model_loop(store, memory, ctx, tools, emit=None)
    if not signals_missing_memory(first):
        for piece in re.findall(r"\S+\s*|\s+", first):
            emit({"type": "token", "text": piece})
        return first, []
    recalled = _recall(customer_id, text)
    memory.buffer.set_memory(format_memory_block(recalled, language, memory.records, memory.promises))
    return _model_loop(store, memory, ctx, tools, emit), recalled


def _finish(
    store: short_term.SessionStore,
    ctx: ToolContext,
    reply: str,
    recalled: list[Recalled],
    memory: _Memory | None,
    emit: Emit,
    *,
    stream: bool,
    move: tuple[AgentState, str, set[AgentState]] | None = None,
    expected: Conversation | None = None,
) -> TurnResult:
    """Store the reply (after ``move``: a state, its reason, the states it may leave), tell the socket
    what memory did, queue consolidation when due; or hand over if the turn escalated. ``expected`` is
    the row as this turn's last batch left it (``SessionStore.batch``). What a yes changed
    (``memory.told``) is stored already, and said before the reply."""
    told = memory.told if memory else ""
    with store.batch(ctx.conversation_id, expected=expected) as conversation:
        if conversation.state != AgentState.ESCALATED:
            if move is not None:
                to, reason, only_from = move
                store.transition(ctx.conversation_id, to, reason, progress=False, only_from=only_from)
            message = store.append(ctx.conversation_id, _entry(Role.ASSISTANT, reply))
    if conversation.state == AgentState.ESCALATED:
        return _hand_over(ctx, recalled, emit, told, memory.told_seq if memory else None)
    if stream:
        for piece in re.findall(r"\S+\s*|\s+", f"{told}\n{reply}" if told else reply):
            emit({"type": "token", "text": piece})
    used = (memory.buffer.usage().used, memory.buffer.conversation_tokens()) if memory else (0, 0)
    emit(memory_frame(conversation, recalled, ctx.language, *used, promises=memory.promises if memory else []))
    if store.compression_due(conversation.pk, conversation.last_seq):
        from memory.tasks import compress_conversation, enqueue

        enqueue(compress_conversation, str(conversation.pk))  # the cheap model summarises old chunks off the turn
    if settings.MEMORY_RECALL_MODE != "off" and needs_consolidation(conversation):
        from memory.tasks import queue_consolidation

        queue_consolidation(conversation.pk, conversation.customer_id)  # not queued: the beat sweep catches up
    return TurnResult(
        reply=f"{told}\n{reply}" if told else reply,
        message_id=message.seq,
        state=conversation.state,
        recalled=recalled,
        language=ctx.language,
    )


def _hand_over(
    ctx: ToolContext, recalled: list[Recalled], emit: Emit, told: str = "", told_seq: int | None = None
) -> TurnResult:
    """A person was asked for (a tool, or loop detection): queue the handoff; the bot falls silent. What the
    model streamed before is taken back, but ``told`` (stored as ``told_seq``): what a yes changed stays said."""
    handoff.open_handoff(ctx.conversation_id)
    text = prompts.ESCALATED[ctx.language].format(hours=settings.COMMITMENT_CALLBACK_HOURS)  # the promise made
    emit({"type": "reply_reset"})  # what the model streamed before the handover is not kept: it leaves the page
    if told:
        emit({"type": "token", "text": told})
    emit({"type": "escalated", "text": text})
    return TurnResult(
        reply=told,
        message_id=told_seq,
        state=AgentState.ESCALATED,
        recalled=recalled,
        escalated=True,
        language=ctx.language,
    )


def memory_frame(
    conversation: Conversation,
    recalled: list[Recalled],
    language: str,
    used_tokens: int = 0,
    history_tokens: int = 0,
    *,
    promises: Sequence[str] = (),
) -> JSONObject:
    """The memory inspector's data: what was recalled, the shop's promises the turn read, the working-memory
    budget (``history``: the conversation's share of it), what was learned."""
    # nothing is learned from a conversation before its first consolidation
    learned = learned_in(conversation.customer_id, conversation.pk) if conversation.consolidated_seq else []
    return {
        "type": "memory",
        "recalled": [
            {"content": m.content, "tag": confidence_tag(m, language), "key": m.key, "value": m.value} for m in recalled
        ],
        "promises": list(promises),
        "working": {"used": used_tokens, "history": history_tokens, "max": working.budget_tokens()},
        "learned": learned,
        "state": conversation.state,
    }
