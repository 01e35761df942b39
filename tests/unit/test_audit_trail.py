"""Which requests the audit log records in accounts mode (api/audit_trail.py), and as what."""

from __future__ import annotations

import pytest

from rabbithole.api.audit_trail import audited


@pytest.mark.parametrize(
    ("method", "path", "range_header", "expected"),
    [
        ("POST", "/api/collections/laws/documents", None, ("upload", "laws")),
        ("DELETE", "/api/collections/laws/documents/Pr%C3%BCfG.pdf", None, ("delete", "laws/PrüfG.pdf")),
        ("DELETE", "/api/collections/laws", None, ("delete", "laws")),
        ("DELETE", "/api/documents/7", None, ("delete", "7")),
        ("DELETE", "/api/runs/abc", None, ("delete", "abc")),
        ("POST", "/api/runs", None, ("run_started", "")),
        ("GET", "/api/documents/7/pdf", None, ("pdf_opened", "7")),
        ("GET", "/api/documents/7/pdf", "bytes=0-65535", ("pdf_opened", "7")),
        ("GET", "/api/documents/7/pdf", "bytes=65536-131071", None),  # a later range of the same opening
        ("GET", "/api/collections/laws/documents/a.pdf/pdf", None, ("pdf_opened", "laws/a.pdf")),
        ("POST", "/api/langgraph/threads/t1/runs/stream", None, ("run_started", "t1")),
        ("DELETE", "/api/langgraph/threads/t1", None, ("delete", "t1")),
        ("GET", "/api/collections/laws/documents", None, None),
        ("POST", "/api/runs/abc/resume", None, None),
        ("POST", "/api/langgraph/threads/t1/history", None, None),
        ("PUT", "/api/collections/laws/registry", None, None),
    ],
)
def test_what_is_recorded(method: str, path: str, range_header: str | None, expected: object) -> None:
    assert audited(method, path, range_header) == expected
