"""LoCoMo retrieval through the project's own recall path, beside a numpy brute-force baseline.
The data is read at run time from outside the repository and never copied into it (CC BY-NC 4.0). How to run
it and what it measures: docs/bench.md ("The scripts").
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import services  # noqa: E402 - needs the path above

DATABASE = "locomo_bench"
DEFAULT_PATH = services.ROOT.parent / "shared" / "bench" / "locomo-dev.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
CUTOFFS = (5, 10, 25)
DEPTH = max(CUTOFFS)
_EVIDENCE = re.compile(r"D\s*:?\s*(\d+)\s*[:\-.]\s*(\d+)", re.IGNORECASE)


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str

    @property
    def memory_text(self) -> str:
        return f'{self.speaker} said, "{self.text}"'


@dataclass
class Question:
    conversation: str
    text: str
    category: int
    evidence: set[str]


@dataclass
class Skipped:
    normalised: int = 0
    unknown_ids: list[str] = field(default_factory=list)
    malformed: list[str] = field(default_factory=list)
    no_evidence: int = 0


def session_turns(conversation: dict) -> list[Turn]:
    """Every turn of a conversation in session order."""
    numbers = sorted(int(m.group(1)) for key in conversation if (m := re.fullmatch(r"session_(\d+)", key)))
    return [
        Turn(turn["dia_id"], turn["speaker"], turn["text"])
        for number in numbers
        for turn in conversation[f"session_{number}"]
    ]


def normalise_evidence(raw: list[str], known: set[str], skipped: Skipped) -> set[str]:
    """Evidence ids as ``D<session>:<turn>``; malformed ones repaired where possible, the rest counted."""
    found: set[str] = set()
    for entry in raw:
        matches = list(_EVIDENCE.finditer(str(entry)))
        if not matches:
            skipped.malformed.append(str(entry))
            continue
        ids = [f"D{int(match.group(1))}:{int(match.group(2))}" for match in matches]
        if ids != [str(entry).strip()]:
            skipped.normalised += 1
        for dia_id in ids:
            if dia_id in known:
                found.add(dia_id)
            else:
                skipped.unknown_ids.append(str(entry))
    return found


def scores_of(ranked: list[str], evidence: set[str]) -> dict[str, float]:
    result = {f"R@{k}": len(evidence & set(ranked[:k])) / len(evidence) for k in CUTOFFS}
    first = next((rank for rank, dia_id in enumerate(ranked[:DEPTH], start=1) if dia_id in evidence), None)
    result["MRR"] = 1.0 / first if first else 0.0
    return result


def table(rows: dict[str, dict[str, list[dict[str, float]]]], methods: list[str]) -> list[str]:
    """Markdown lines: one row per group and method, the mean of each score."""
    lines = ["| questions | n | method | R@5 | R@10 | R@25 | MRR |", "|---|---:|---|---:|---:|---:|---:|"]
    for group, by_method in rows.items():
        for method in methods:
            scores = by_method[method]
            means = [statistics.mean(s[name] for s in scores) for name in ("R@5", "R@10", "R@25", "MRR")]
            lines.append(f"| {group} | {len(scores)} | {method} | " + " | ".join(f"{m:.3f}" for m in means) + " |")
    return lines


def paired(per_question: list[tuple[Question, dict[str, dict[str, float]]]], a: str, b: str) -> list[str]:
    """Per-question differences ``a - b``: questions better/worse, and a bootstrap 95% interval of the mean."""
    rng = np.random.default_rng(0)
    lines = [
        f"Paired, {a} minus {b}, per question (95% bootstrap interval of the mean difference, 2,000 resamples):",
        "",
        "| questions | score | mean difference | 95% interval | better | worse |",
        "|---|---|---:|---|---:|---:|",
    ]
    for group, keep in (("all", lambda q: True), ("without 5", lambda q: q.category != 5)):
        rows = [scores for question, scores in per_question if keep(question)]
        for name in ("R@5", "R@10", "R@25", "MRR"):
            diff = np.array([scores[a][name] - scores[b][name] for scores in rows])
            means = rng.choice(diff, size=(2000, len(diff)), replace=True).mean(axis=1)
            low, high = np.percentile(means, [2.5, 97.5])
            lines.append(
                f"| {group} | {name} | {diff.mean():+.3f} | [{low:+.3f}, {high:+.3f}] | {(diff > 0).sum()} |"
                f" {(diff < 0).sum()} |"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH, help="a LoCoMo-format JSON file")
    parser.add_argument("--markdown", type=Path, help="also write the tables to this file")
    parser.add_argument("--datadir", type=Path, default=services.DEFAULT_DATADIR)
    parser.add_argument("--keep", action="store_true", help="keep the database (the servers stop anyway)")
    args = parser.parse_args()
    data = json.loads(args.path.read_text())
    services.run_benchmark(args, DATABASE, lambda: run(args, data))


def run(args: argparse.Namespace, data: list[dict]) -> None:  # noqa: C901 - one benchmark, read top to bottom
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from agentsite import clock
    from memory.embeddings import get_embedder
    from memory.longterm import Candidate, insert
    from memory.models import LongTermMemory
    from memory.recall import recall

    print(services.machine())
    settings_line = (
        f"recall settings: ranking default {settings.MEMORY_RECALL_RANKING}, candidates factor "
        f"{settings.MEMORY_RECALL_CANDIDATES_FACTOR}, keyword candidates {settings.MEMORY_RECALL_KEYWORD_CANDIDATES},"
        f" min trigram {settings.MEMORY_RECALL_MIN_TRIGRAM}"
    )
    print(settings_line)
    embedder = get_embedder()
    methods = ["brute-force", "dense", "hybrid"]
    per_question: list[tuple[Question, dict[str, dict[str, float]]]] = []
    skipped = Skipped()
    mismatches: list[str] = []
    latency: dict[str, list[float]] = defaultdict(list)
    counts: list[str] = []

    for number, sample in enumerate(data):
        name = sample.get("sample_id", f"conversation-{number + 1}")
        turns = session_turns(sample["conversation"])
        duplicates = [dia_id for dia_id, n in Counter(t.dia_id for t in turns).items() if n > 1]
        known = {turn.dia_id for turn in turns}
        questions = []
        for item in sample["qa"]:
            evidence = normalise_evidence(item.get("evidence", []), known, skipped)
            if evidence:
                questions.append(Question(name, item["question"], int(item["category"]), evidence))
            else:
                skipped.no_evidence += 1

        started = time.perf_counter()
        texts = [turn.memory_text for turn in turns]
        passages = np.vstack([embedder.embed_passages(texts[i : i + 32]) for i in range(0, len(texts), 32)])
        embedded = time.perf_counter() - started
        customer = get_user_model().objects.create_user(username=f"locomo-{number}-{name}")
        memory_turn: dict[int, str] = {}
        with transaction.atomic():
            for turn, text, vector in zip(turns, texts, passages, strict=True):
                candidate = Candidate(type="experience", content=text, confidence=0.9, metadata={"dia_id": turn.dia_id})
                memory = insert(customer.pk, candidate, vector, actor="locomo", now=clock.now())
                memory_turn[memory.pk] = turn.dia_id
        stored = LongTermMemory.objects.filter(customer=customer).count()
        counts.append(
            f"{name}: {len(turns)} turns, {stored} memories read back, {len(questions)} questions"
            f"{f', duplicate turn ids {duplicates}' if duplicates else ''}"
        )
        print(f"{counts[-1]} (embedded in {embedded:.1f} s)")

        matrix = passages.astype(np.float64)
        for question in questions:
            query = embedder.embed_queries([question.text])[0].astype(np.float64)
            cosine = matrix @ query / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(query))
            order = np.argsort(-cosine, kind="stable")[:DEPTH]
            brute = [turns[i].dia_id for i in order]
            ranked = {"brute-force": brute}
            for ranking in ("dense", "hybrid"):
                started = time.perf_counter()
                recalled = recall(customer.pk, question.text, k=DEPTH, ranking=ranking, touch=False)
                latency[ranking].append((time.perf_counter() - started) * 1000)
                ranked[ranking] = [memory_turn[m.id] for m in recalled]
            if ranked["dense"] != brute:
                position = next(
                    (i for i, (a, b) in enumerate(zip(ranked["dense"], brute, strict=False)) if a != b),
                    min(len(ranked["dense"]), len(brute)),
                )
                index = {t.dia_id: i for i, t in enumerate(turns)}
                gap = (
                    abs(cosine[index[brute[position]]] - cosine[index[ranked["dense"][position]]])
                    if position < min(len(brute), len(ranked["dense"]))
                    else float("nan")
                )
                mismatches.append(
                    f"{name} {question.text!r}: first difference at rank {position + 1}, cosine gap {gap:.2e}"
                )
            per_question.append(
                (question, {method: scores_of(ranked[method], question.evidence) for method in methods})
            )

    groups: dict[str, dict[str, list[dict[str, float]]]] = defaultdict(lambda: defaultdict(list))
    for question, by_method in per_question:
        for method, scores in by_method.items():
            groups[f"{question.category} {CATEGORIES.get(question.category, '?')}"][method].append(scores)
            groups["all"][method].append(scores)
            if question.category != 5:
                groups["without 5"][method].append(scores)
    ordered = {key: groups[key] for key in sorted(k for k in groups if k[0].isdigit())}
    ordered["all"], ordered["without 5"] = groups["all"], groups["without 5"]

    lines = table(ordered, methods)
    lines += ["", *paired(per_question, "hybrid", "dense")]
    notes = [
        f"- source: `{args.path.name}`, {len(data)} conversations; {'; '.join(counts)}",
        f"- evidence entries: {skipped.normalised} normalised (split or reformatted);"
        f" {len(skipped.unknown_ids)} naming no turn skipped {skipped.unknown_ids[:10]},"
        f" {len(skipped.malformed)} unreadable skipped {skipped.malformed[:10]};"
        f" {skipped.no_evidence} questions left without evidence skipped",
        f"- dense recall() vs brute force: {len(per_question) - len(mismatches)} of {len(per_question)} questions"
        f" ranked identically to rank {DEPTH}",
        f"- recall() latency per question (~{statistics.mean(len(session_turns(s['conversation'])) for s in data):.0f}"
        f" memories per customer, query embedding cached by the baseline):"
        f" dense {services.summary(latency['dense'])}; hybrid {services.summary(latency['hybrid'])}",
        f"- {settings_line}",
        f"- {services.machine()}",
    ]
    print("\n".join(["", *lines, "", *notes]))
    for mismatch in mismatches[:20]:
        print("  mismatch:", mismatch)
    if args.markdown:
        args.markdown.write_text(
            "\n".join(
                [f"<!-- written by benchmarks/locomo_bench.py on {time.strftime('%Y-%m-%d')} -->", *lines, "", *notes]
            )
            + "\n"
        )
        print(f"wrote {args.markdown}")


if __name__ == "__main__":
    main()
