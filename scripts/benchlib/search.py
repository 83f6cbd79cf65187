"""``bench_search(n)``: memory search latency over n synthetic memories (p50/p95, milliseconds).

Runs the same under CPython and in Pyodide; the benchmark harness calls it and reports the numbers.

Two corpora: ``natural`` (the default) draws words Zipf-style from a vocabulary whose most frequent
words are English stopwords, as in real notes; ``worst`` draws every word uniformly from ~70 words,
so each query term matches ~15 % of all memories — the bound on ranking work (see
``memories.RANK_CANDIDATES``) is what keeps that case in check.
"""

from __future__ import annotations

import bisect
import itertools
import random
import time
from dataclasses import dataclass
from typing import Literal

from runtime.store.memories import STOPWORDS
from runtime.store.store import Store

Corpus = Literal["natural", "worst"]

_COMMON = (
    "apple banana cherry river mountain train plane coffee tea garden python rust kernel browser worker "
    "memory session travel kyoto lisbon budget invoice meeting friday monday doctor allergy peanut "
    "birthday gift project deadline review design storage sqlite search index ranking summary model "
    "provider token stream approval workspace skill archive sandbox network proxy cache quota backup "
    "music guitar piano novel poetry history science physics chemistry biology running cycling swim"
)
_CONTENT = (*_COMMON.split(), *(f"w{i:04d}" for i in range(5000)))
_NATURAL = (*sorted(STOPWORDS), *_CONTENT)


@dataclass(frozen=True)
class SearchBench:
    n: int
    queries: int
    corpus: Corpus
    p50_ms: float
    p95_ms: float
    insert_s: float


class _Words:
    """Draw words with probability ~ 1/rank (Zipf, s=1) or uniformly."""

    def __init__(self, words: tuple[str, ...], rng: random.Random, zipf: bool) -> None:
        self.words, self.rng = words, rng
        weights = [1 / (rank + 1) if zipf else 1.0 for rank in range(len(words))]
        self.cumulative = list(itertools.accumulate(weights))

    def pick(self, k: int) -> list[str]:
        total = self.cumulative[-1]
        return [self.words[bisect.bisect(self.cumulative, self.rng.random() * total)] for _ in range(k)]


def _percentile(sorted_ms: list[float], fraction: float) -> float:
    index = min(len(sorted_ms) - 1, max(0, round(fraction * (len(sorted_ms) - 1))))
    return sorted_ms[index]


def bench_search(
    n: int, *, queries: int = 200, corpus: Corpus = "natural", seed: int = 7, limit: int = 10
) -> SearchBench:
    """Insert ``n`` memories into a fresh in-memory store, then time ``queries`` searches."""
    rng = random.Random(seed)
    natural = corpus == "natural"
    text_words = _Words(_NATURAL if natural else tuple(_COMMON.split()), rng, natural)
    query_words = _Words(_CONTENT if natural else tuple(_COMMON.split()), rng, natural)
    store = Store()
    try:
        started = time.perf_counter()
        with store.atomic():
            for _ in range(n):
                store.memory_save(" ".join(text_words.pick(rng.randint(6, 18))), query_words.pick(1))
        insert_s = time.perf_counter() - started
        timings: list[float] = []
        for _ in range(queries):
            query = " ".join(query_words.pick(rng.randint(1, 3)))
            t0 = time.perf_counter()
            store.memory_search(query, limit=limit)
            timings.append((time.perf_counter() - t0) * 1000)
    finally:
        store.close()
    timings.sort()
    return SearchBench(n, queries, corpus, _percentile(timings, 0.5), _percentile(timings, 0.95), insert_s)
