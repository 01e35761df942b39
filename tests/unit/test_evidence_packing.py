from __future__ import annotations

import pytest

from rabbithole.research.evidence.packing import PackItem, pack


def item(key: str, priority: int, tokens: int) -> PackItem:
    return PackItem(key=key, text=f"text of {key}", priority=priority, tokens=tokens)


def test_everything_fits() -> None:
    items = [item("a", 2, 10), item("b", 1, 10)]
    result = pack(items, 20)
    assert result.kept == items and result.cut == [] and result.used == 20


def test_priority_decides_and_kept_items_stay_in_order() -> None:
    items = [item("low", 3, 50), item("top", 0, 60), item("mid", 1, 30), item("mid2", 1, 20)]
    result = pack(items, 100)
    assert [i.key for i in result.kept] == ["top", "mid"]
    assert result.cut == ["low", "mid2"]
    assert result.used == 90


def test_an_item_that_does_not_fit_is_skipped_not_truncated() -> None:
    items = [item("big", 0, 80), item("huge", 1, 50), item("small", 2, 20)]
    result = pack(items, 100)
    assert [i.key for i in result.kept] == ["big", "small"]
    assert result.cut == ["huge"]
    assert result.used == 100
    assert all(kept == original for kept, original in zip(result.kept, [items[0], items[2]], strict=True))


def test_equal_priorities_are_stable() -> None:
    items = [item("first", 1, 60), item("second", 1, 60)]
    assert [i.key for i in pack(items, 100).kept] == ["first"]


def test_zero_and_negative_budgets() -> None:
    items = [item("free", 5, 0), item("paid", 0, 1)]
    result = pack(items, 0)
    assert [i.key for i in result.kept] == ["free"] and result.cut == ["paid"] and result.used == 0
    assert pack(items, -1).cut == ["free", "paid"]
    assert pack([], 10).kept == []
    with pytest.raises(ValueError):
        pack([item("bad", 0, -1)], 10)
