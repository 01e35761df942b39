"""BusyClock: the union of overlapping timed intervals."""

from __future__ import annotations

import pytest

from rabbithole.ingestion.busy_clock import BusyClock


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_overlapping_calls_count_once() -> None:
    clock = _Clock()
    busy = BusyClock(clock)
    busy.start()  # 0: first call
    clock.now = 2.0
    busy.start()  # 2: second call, overlapping
    clock.now = 3.0
    busy.stop()  # 3: first call ends, the second still runs
    clock.now = 5.0
    busy.stop()  # 5: idle
    clock.now = 9.0
    assert busy.seconds == 5.0
    busy.start()
    clock.now = 10.0
    assert busy.seconds == 6.0  # a running call counts up to now
    busy.stop()
    clock.now = 20.0
    assert busy.seconds == 6.0


def test_timed_returns_the_result_and_stops_on_errors() -> None:
    clock = _Clock()
    busy = BusyClock(clock)

    def work(x: int) -> int:
        clock.now += 1.5
        return x * 2

    assert busy.timed(work, 21) == 42

    def fail() -> None:
        clock.now += 1.0
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        busy.timed(fail)
    clock.now += 4.0
    assert busy.seconds == 2.5
