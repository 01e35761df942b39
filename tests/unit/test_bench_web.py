"""bench_web's reading of the browser measurements: a moment the page never showed is "not seen" and a
MISS, never a figure; a text file of the first load that came without Content-Encoding is named."""

from __future__ import annotations

from benchmarks.bench_web import _draft_goal
from benchmarks.web_flow import read_flow, shown
from benchmarks.web_latency import applied_latencies, slowest_first_changes


def entry(url: str, sizes: tuple[int, int, int], encoding: str | None) -> dict[str, object]:
    transferred, encoded, decoded = sizes
    sized = {"transferred": transferred, "encoded": encoded, "decoded": decoded}
    return {"url": url, **sized, "encoding": encoding}


def flow_data(draft: float | None, encoding: str | None = "br") -> dict[str, object]:
    return {
        "firstLoad": [
            entry("http://h/#/runs/new", (600, 300, 435), "gzip"),
            entry("http://h/assets/i.js", (900, 800, 4000), encoding),
            entry("http://h/font.woff2", (500, 400, 400), None),
        ],
        "startToProgressMs": 440.0,
        "startToDraftTextMs": draft,
        "startToReportMs": 5470.5,
    }


def test_streamed_text_never_seen_is_a_miss_not_a_figure() -> None:
    flow = read_flow(flow_data(None))
    assert flow.to_draft_text_ms is None and shown(flow.to_draft_text_ms) == "not seen"
    goal = _draft_goal(flow)
    assert goal.verdict == "MISS" and goal.detail.startswith("not seen")
    assert _draft_goal(read_flow(flow_data(1200.0))).verdict == "PASS"
    assert _draft_goal(read_flow(flow_data(6000.0))).verdict == "MISS"  # only when the report was there


def test_the_first_load_counts_transferred_bytes_and_names_uncompressed_text() -> None:
    load = read_flow(flow_data(None)).first_load
    assert load.transferred_kb == 2.0 and load.decoded_kb == 4.835
    assert load.uncompressed_text == []
    assert read_flow(flow_data(None, encoding=None)).first_load.uncompressed_text == ["/assets/i.js"]


def test_an_event_is_in_the_dom_at_the_first_commit_mark_covering_it() -> None:
    # events 1-3 arrive at 10, 20, 30 ms; the app commits 1 at 12 ms and 2-3 together at 41 ms; event 4
    # (at 50 ms) is never committed within the window
    marks = [[12.0, 1], [41.0, 3], [9000.0, 4]]
    applied = applied_latencies([10.0, 20.0, 30.0, 50.0], [1, 2, 3, 4], marks)
    assert applied.latencies == [2.0, 21.0, 11.0] and applied.unapplied == 1


def test_the_slowest_first_changes_name_what_changed_and_when_the_event_was_applied() -> None:
    page = {
        "events": [10.0, 100.0],
        "types": ["status", "done"],
        "seqs": [1, 2],
        "mutations": [13.0, 360.0],
        "targets": ["run-status", "run-llm-calls"],
        "applied": [[12.0, 1], [104.0, 2]],
    }
    slowest = slowest_first_changes(page)
    assert [(s.type, s.first_change_ms, s.applied_ms, s.changed) for s in slowest] == [
        ("done", 260.0, 4.0, "run-llm-calls"),
        ("status", 3.0, 2.0, "run-status"),
    ]
