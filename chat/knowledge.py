"""The shop's knowledge base: policy articles found by the same ranking machinery as memories. See
README.md ("The demo shop").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.conf import settings
from django.db import connection

from chat.models import PolicyArticle, PolicyChunk
from memory.embeddings import get_embedder
from memory.recall import exact_tokens, fuse, vector_queries

TABLE = PolicyArticle._meta.db_table
CHUNKS = PolicyChunk._meta.db_table
# An article is as close as its closest sentence.
_DENSE_SQL = f"""
    SELECT a.id FROM {TABLE} a JOIN {CHUNKS} c ON c.article_id = a.id
    WHERE %(language)s = '' OR a.language = %(language)s
    GROUP BY a.id ORDER BY min(c.embedding <=> %(vector)s::vector) LIMIT %(limit)s
"""  # noqa: S608 - constant SQL, values are parameters
# Keywords are matched per sentence too: over a whole article, trigram similarity finds something everywhere.
_KEYWORD_SQL = f"""
    SELECT article_id FROM (
        SELECT c.article_id,
               max((SELECT count(*) FROM unnest(%(tokens)s::text[]) t WHERE c.text ILIKE '%%' || t || '%%')) AS exact,
               max(similarity(%(query)s, c.text)) AS trigram,
               max(ts_rank(to_tsvector('simple', c.text), plainto_tsquery('simple', %(query)s))) AS fulltext
        FROM {CHUNKS} c JOIN {TABLE} a ON a.id = c.article_id
        WHERE %(language)s = '' OR a.language = %(language)s
        GROUP BY c.article_id
    ) scored
    WHERE exact > 0 OR trigram >= %(min_trigram)s OR fulltext > 0
    ORDER BY exact DESC, trigram + fulltext DESC LIMIT %(limit)s
"""  # noqa: S608


@dataclass(frozen=True)
class Found:
    id: int
    title: str
    snippet: str
    language: str
    score: float


SNIPPET_CHARS = 240
_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|[。！？；]")


def snippet(body: str, limit: int = SNIPPET_CHARS) -> str:
    """The start of an article, at most ``limit`` characters, ending where a sentence ends: a reply quoting it
    never stops mid-word ("cannot be refunded ag"). A first sentence longer than that is cut at a word, with
    an ellipsis."""
    text = " ".join(body.split())
    if len(text) <= limit:
        return text
    ends = [m.end() for m in _SENTENCE_END.finditer(text, 0, limit + 1)]
    if ends:
        return text[: ends[-1]]
    cut = text[: limit - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + "…"


def search_policies(query: str, *, language: str = "", k: int = 3, ranking: str | None = None) -> list[Found]:
    """Return the best ``k`` policy articles for ``query`` (in ``language`` when given).

    ``KNOWLEDGE_RANKING`` is ``dense`` by default: on the generated questions of
    tests/chat/test_knowledge.py, sentence-level cosine placed the right article first for 18 of 20
    (always in the top three) and the hybrid fusion for 17 of 20 — policies hold no identifiers for
    keywords to catch, and trigram matches on common words only add noise.
    """
    ranking = ranking or settings.KNOWLEDGE_RANKING
    if not query.strip():
        return []
    vector = get_embedder().embed_queries([query])[0]
    params: dict[str, str | int | float | list[str]] = {
        "vector": "[" + ",".join(f"{x:.7f}" for x in vector.tolist()) + "]",  # floats format faster than numpy's
        "language": language,
        "limit": k * 4,
        "query": query,
        "tokens": exact_tokens(query),
        "min_trigram": settings.KNOWLEDGE_MIN_TRIGRAM,
    }
    with connection.cursor() as cursor:
        cursor.execute(_DENSE_SQL, params)
        rankings = [[row[0] for row in cursor.fetchall()]]
        vector_queries.bump()
        if ranking == "hybrid":
            cursor.execute(_KEYWORD_SQL, params)
            rankings.append([row[0] for row in cursor.fetchall()])
    scores = fuse(rankings)
    best = sorted(scores, key=lambda article_id: -scores[article_id])[:k]
    articles = PolicyArticle.objects.in_bulk(best)
    return [
        Found(id=a.pk, title=a.title, snippet=snippet(a.body), language=a.language, score=scores[a.pk])
        for article_id in best
        if (a := articles.get(article_id)) is not None
    ]
