"""The blind paraphrase corpus (tests/offline_model/paraphrases/FAMILIES.md) read by the offline model and the
application's confirmation rules: every family, language and half at or above the figure docs/offline-model.md
publishes, so a rule change that loses wordings fails here. Figures there are only ever raised."""

from __future__ import annotations

import functools
import re
from collections import Counter
from pathlib import Path

import pytest

from tests.offline_model.paraphrases import corpus, reading

DOC = Path(__file__).resolve().parents[2] / "docs" / "offline-model.md"
COLUMNS = [f"{lang} {part}" for lang in corpus.LANGUAGES for part in ("tuning", "held back", "negatives")]


@functools.cache
def published() -> dict[tuple[str, str], tuple[int, int]]:
    """(family, column) → (right, total) from the table between the paraphrase markers of the doc."""
    text = DOC.read_text(encoding="utf-8")
    table = text.split("<!-- paraphrases:start -->")[1].split("<!-- paraphrases:end -->")[0]
    figures = {}
    for line in table.splitlines():
        row = re.match(r"\|\s*`(\w+)`\s*\|(.*)\|\s*$", line)
        if row:
            cells = [re.search(r"\((\d+)/(\d+)\)", c) for c in row.group(2).split("|")]
            for column, cell in zip(COLUMNS, cells, strict=True):
                figures[row.group(1), column] = (int(cell.group(1)), int(cell.group(2)))
    return figures


@functools.cache
def measured() -> dict[tuple[str, str], tuple[int, int]]:
    figures = reading.table()
    out = {}
    for family in corpus.families():
        for lang in corpus.LANGUAGES:
            out[family, f"{lang} tuning"] = figures[family, lang, corpus.TUNING, True]
            out[family, f"{lang} held back"] = figures[family, lang, corpus.HELD_BACK, True]
            negatives = [figures.get((family, lang, half, False), (0, 0)) for half in (corpus.TUNING, corpus.HELD_BACK)]
            out[family, f"{lang} negatives"] = (sum(r for r, _ in negatives), sum(t for _, t in negatives))
    return out


@pytest.mark.parametrize("column", COLUMNS)
@pytest.mark.parametrize("family", corpus.families())
def test_each_family_reads_at_least_as_well_as_published(family, column):
    right, total = measured()[family, column]
    published_right, published_total = published()[family, column]
    assert total == published_total, "the corpus changed: publish its new figures"
    assert right >= published_right, reading.failures(corpus.HELD_BACK if "held" in column else corpus.TUNING)


def test_the_corpus_has_forty_wordings_a_family_and_language_and_negatives():
    wordings = corpus.load()
    positives = Counter((w.family, w.lang) for w in wordings if w.positive)
    negatives = Counter((w.family, w.lang) for w in wordings if not w.positive)
    assert len(corpus.families()) == 21
    for family in corpus.families():
        for lang in corpus.LANGUAGES:
            assert positives[family, lang] >= 40 and negatives[family, lang] >= 12, (family, lang)
    assert {w.subject for w in wordings if w.family == "ask_fact" and w.positive} == {
        "shipping_address",
        "contact_channel",
        "notification_preference",
        "name",
        "phone_number",
        "email",
        "birthday",
        "preferred_carrier",
        "order_number",
    }


def test_the_split_is_fixed_by_the_wording_alone():
    one = corpus.Wording("thanks", "en", True, "", "thank you so much")
    assert one.half == corpus.Wording("greeting", "en", False, "", "thank you so much").half
    halves = Counter(w.half for w in corpus.load())
    assert abs(halves[corpus.TUNING] - halves[corpus.HELD_BACK]) < 0.1 * sum(halves.values())
