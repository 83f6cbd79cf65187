"""bench_search: the numbers the benchmark reports are produced and sane (a small n, both corpora)."""

from __future__ import annotations

import pytest

from scripts.benchlib.search import Corpus, bench_search


@pytest.mark.parametrize("corpus", [pytest.param("natural", id="natural"), pytest.param("worst", id="worst")])
def test_bench_search_reports_percentiles(corpus: Corpus) -> None:
    result = bench_search(300, queries=30, corpus=corpus)
    assert (result.n, result.queries, result.corpus) == (300, 30, corpus)
    assert 0 < result.p50_ms <= result.p95_ms < 1000
    assert result.insert_s > 0
