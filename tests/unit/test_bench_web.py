"""bench_web's reading of the browser measurements: a moment the page never showed is "not seen" and a
MISS, never a figure; a text file of the first load that came without Content-Encoding is named."""

from __future__ import annotations

from benchmarks.bench_web import _draft_goal
from benchmarks.web_flow import read_flow, shown


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
