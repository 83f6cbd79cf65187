"""``Kept``: bounded by weight, the least recently used dropped first."""

from __future__ import annotations

from runtime.store.kept import Kept


def test_the_least_recently_used_goes_first_past_the_limit() -> None:
    kept: Kept[str, int] = Kept(3)
    for key in "abc":
        kept.put(key, ord(key))
    assert kept.get("a") == ord("a")  # now the most recently used
    kept.put("d", 4)
    assert kept.get("b") is None
    assert [kept.get(k) for k in "acd"] == [ord("a"), ord("c"), 4]
    assert len(kept) == 3


def test_weight_bounds_what_is_kept_and_a_value_put_again_is_counted_once() -> None:
    kept: Kept[str, str] = Kept(10, lambda key, value: len(value))
    kept.put("x", "12345")
    kept.put("x", "1234567")  # replaces: 7 kept, not 12
    kept.put("y", "123")
    assert (kept.get("x"), kept.get("y")) == ("1234567", "123")
    kept.put("z", "12")  # 12 > 10: the least recently used (x) goes
    assert kept.get("x") is None
    assert (kept.get("y"), kept.get("z")) == ("123", "12")
    kept.put("big", "x" * 50)  # alone over the limit: kept until the next one
    assert kept.get("big") == "x" * 50 and len(kept) == 1
