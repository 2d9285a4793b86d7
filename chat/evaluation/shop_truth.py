"""The figure of "One truth": answers about shop-owned keys that disagree with the shop's record. Customers
whose record holds one value say something else (in held-out wordings, ``data/shop_keys_eval.json``) and do
not confirm it, or correct it on their memory page; three days later a new conversation asks for the key
through the real turn, and each reply is judged against the record, in a transaction that is rolled back.
The conditions and verdicts: docs/eval.md, "One truth".
"""

from __future__ import annotations

import json
import re
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Literal, TypedDict

from django.contrib.auth import get_user_model
from django.db import transaction

from agentsite import clock
from chat import shop
from chat.agent import run_turn
from chat.evaluation.scratch import Progress, quiet, scratch
from chat.forms import CorrectMemoryForm
from chat.models import CustomerProfile, PendingAction
from memory import session as short_term
from memory.consolidation import consolidate
from memory.keys import SHOP_OWNED
from memory.models import LongTermMemory

CORPUS = Path(__file__).parent / "data" / "shop_keys_eval.json"
START = {
    "shipping_address": {"en": "1 Start Road, Leeds LS1 1AA", "zh": "上海市黄浦区南京东路1号"},
    "notification_preference": {"en": "on", "zh": "on"},
    "contact_channel": {"en": "email", "zh": "email"},
}
OTHER_CHOICE = {"notification_preference": "mute", "contact_channel": "wechat"}  # a correction's new value
# How a value shows in a reply, for the choice keys (addresses show as written).
WORDS = {
    "mute": {"en": [r"\bmuted?\b", r"\bturned off\b", r"\bsilenced\b"], "zh": ["静音"]},
    "on": {"en": [r"\bturned on\b", r"\benabled\b", r"\bnotifications are on\b"], "zh": ["开启", "打开"]},
    "email": {"en": [r"\be-?mail\b"], "zh": ["邮件", "邮箱"]},
    "phone": {"en": [r"\bphone\b(?!\s+number)", r"\bcall\b"], "zh": ["电话(?!号码)"]},  # not the number's key
    "sms": {"en": [r"\bsms\b", r"\btext messages?\b"], "zh": ["短信"]},
    "wechat": {"en": [r"\bwechat\b"], "zh": ["微信"]},
}
NOT_APPLIED = re.compile(r"(?i)not (?:been )?applied|尚未生效|未生效")
CHOICES = {"notification_preference": ("mute", "on"), "contact_channel": ("email", "phone", "sms", "wechat")}
CONDITIONS = ("unrecognised statement", "unconfirmed proposal", "correction")


Verdict = Literal["disagrees", "record", "unanswered"]


class Statement(TypedDict):
    """A wording of the corpus: what the customer says, and the value it names."""

    text: str
    value: str


class Case(TypedDict):
    key: str
    lang: str
    condition: str  # one of CONDITIONS
    verdict: Verdict
    question: str
    reply: str
    record: str


class Row(TypedDict):
    """Counts of one key, language and condition (or "all")."""

    key: str
    lang: str
    condition: str
    n: int
    disagrees: int
    record: int
    unanswered: int


class Played(TypedDict):
    cases: list[Case]
    table: list[Row]
    seconds: float


class Kept(TypedDict):
    """The figure as eval.json keeps it beside the scenarios (the cases go in a key of their own)."""

    table: list[Row]
    seconds: float


def names(key: str, value: str, lang: str, reply: str) -> bool:
    """Whether ``reply`` names ``value`` of ``key``."""
    if key not in CHOICES:
        return value.casefold() in reply.casefold()
    return any(re.search(pattern, reply, re.IGNORECASE) for pattern in WORDS[value][lang])


def judge(key: str, record: str, others: set[str], lang: str, reply: str) -> Verdict:
    """``disagrees``, ``record`` or ``unanswered`` for one reply about ``key`` whose record is ``record``."""
    candidates = set(CHOICES.get(key, ())) | others
    if any(names(key, v, lang, reply) for v in candidates - {record}) and not NOT_APPLIED.search(reply):
        return "disagrees"
    return "record" if names(key, record, lang, reply) else "unanswered"


def _customer(lang: str) -> int:
    name = f"truth-{uuid.uuid4().hex[:10]}"
    user = get_user_model().objects.create_user(username=name, email=f"{name}@example.com")
    CustomerProfile.objects.create(
        user=user, display_name="T", language="en" if lang == "en" else "zh-hans", phone="13900000000"
    )  # an account the shop can reach on every channel: the evaluation is about records, not reach
    with transaction.atomic():  # the shop's records, written through to memory as a real account's are
        for key, start in START.items():
            shop.CHANGE[key](user.pk, start[lang])
    return user.pk


def _case(key: str, lang: str, statement: Statement, question: str, correct: bool, decline: bool) -> Case:
    customer = _customer(lang)
    conversation = short_term.store().start(customer).id
    said = {statement["value"]}
    if correct:
        memory = LongTermMemory.objects.valid().get(customer_id=customer, key=key)
        value = statement["value"] if key not in CHOICES else OTHER_CHOICE[key]
        form = CorrectMemoryForm({"text": value}, memory=memory)
        if form.is_valid():
            form.save()
        said = {value}
        condition = "correction"
    else:
        run_turn(customer, conversation, statement["text"])
        proposed = PendingAction.objects.filter(conversation_id=conversation).exists()
        follow_up = {
            "en": "no thanks" if decline else "What is your returns policy?",
            "zh": "不用了" if decline else "退货政策是什么？",
        }[lang]
        run_turn(customer, conversation, follow_up)
        condition = "unconfirmed proposal" if proposed else "unrecognised statement"
    consolidate(conversation, final=True)
    clock.advance(timedelta(days=3))
    reply = run_turn(customer, short_term.store().start(customer).id, question).reply
    record = getattr(CustomerProfile.objects.get(user_id=customer), SHOP_OWNED[key])
    verdict = judge(key, record, said, lang, reply)
    return Case(key=key, lang=lang, condition=condition, verdict=verdict, question=question, reply=reply, record=record)


def run(progress: Progress = quiet, *, per_key_language: int | None = None, corrections: int = 8) -> Played:
    """Play every case (``per_key_language`` statements and ``corrections`` corrections per key and language)."""
    corpus = json.loads(CORPUS.read_text(encoding="utf-8"))
    plan: list[tuple[str, str, Statement, str, bool, bool]] = []
    for key in SHOP_OWNED:
        for lang in ("en", "zh"):
            statements = corpus["statements"][key][lang][:per_key_language]
            questions = corpus["questions"][key][lang]
            for i, statement in enumerate(statements):
                plan.append((key, lang, statement, questions[i % len(questions)], False, i % 2 == 0))
            for i, statement in enumerate(statements[:corrections]):
                plan.append((key, lang, statement, questions[(i + 7) % len(questions)], True, False))
    started = time.perf_counter()
    cases: list[Case] = []
    with scratch():
        for done, case in enumerate(plan, start=1):
            cases.append(_case(*case))
            progress("shop truth", done, len(plan))
    return Played(cases=cases, table=table(cases), seconds=round(time.perf_counter() - started, 1))


def table(cases: list[Case]) -> list[Row]:
    """Counts per key, language and condition: n, disagreeing with the record, giving it, unanswered."""
    rows: dict[tuple[str, str, str], Row] = {}
    for case in cases:
        for group in ((case["key"], case["lang"], "all"), (case["key"], case["lang"], case["condition"])):
            key, lang, condition = group
            row = rows.setdefault(
                group,
                Row(key=key, lang=lang, condition=condition, n=0, disagrees=0, record=0, unanswered=0),
            )
            row["n"] += 1
            row[case["verdict"]] += 1
    return sorted(rows.values(), key=lambda r: (r["key"], r["lang"], r["condition"] != "all", r["condition"]))


def markdown(results: Played) -> str:
    """The figure's section of reports/eval.md."""
    cases = results["cases"]
    wrong = sum(c["verdict"] == "disagrees" for c in cases)
    lines = [
        "## One truth: answers about shop-owned keys against the shop's record",
        "",
        f"{len(cases)} questions, three days after the customer said something else and did not confirm it, or "
        f"corrected it on the memory page (`chat/evaluation/shop_truth.py`). **Disagreeing with the record: "
        f"{wrong}** (goal 0). Not answered is a miss of the model's understanding, never a false value.",
        "",
        "| key | language | asked after | n | disagree with the record | give the record | not answered |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in results["table"]:
        lines.append(
            f"| {row['key']} | {row['lang']} | {row['condition']} | {row['n']} | {row['disagrees']} | "
            f"{row['record']} | {row['unanswered']} |"
        )
    lines.append("")
    return "\n".join(lines)
