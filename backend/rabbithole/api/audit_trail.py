"""Which requests the audit log records (accounts mode), by method and path: uploads, deletions, runs
started and PDFs opened, once they succeeded (a status below 400), with the account and the address (the
Agent Protocol's thread runs and deletions too; MCP's start_research records itself, mcp/tools.py). The
sign-ins are recorded by the account service itself. A PDF read in byte ranges (pdf.js) is recorded once,
at its first range."""

from __future__ import annotations

import re
from urllib.parse import unquote

from rabbithole.accounts.audit import AuditAction

_RULES: tuple[tuple[str, re.Pattern[str], AuditAction], ...] = (
    ("POST", re.compile(r"/api/collections/([^/]+)/documents"), "upload"),
    ("DELETE", re.compile(r"/api/collections/([^/]+)/documents/([^/]+)"), "delete"),
    ("DELETE", re.compile(r"/api/collections/([^/]+)"), "delete"),
    ("DELETE", re.compile(r"/api/documents/([^/]+)"), "delete"),
    ("DELETE", re.compile(r"/api/runs/([^/]+)"), "delete"),
    ("POST", re.compile(r"/api/runs"), "run_started"),
    ("DELETE", re.compile(r"/api/langgraph/threads/([^/]+)"), "delete"),
    ("POST", re.compile(r"/api/langgraph/threads/([^/]+)/runs(?:/stream|/wait)?"), "run_started"),
    ("GET", re.compile(r"/api/collections/([^/]+)/documents/([^/]+)/pdf"), "pdf_opened"),
    ("GET", re.compile(r"/api/documents/([^/]+)/pdf"), "pdf_opened"),
)


def audited(method: str, path: str, range_header: str | None) -> tuple[AuditAction, str] | None:
    """The action a request of ``method`` on ``path`` is recorded as, and what it acted on; None if it is
    not recorded."""
    for rule_method, pattern, action in _RULES:
        match = pattern.fullmatch(path)
        if rule_method == method and match:
            if action == "pdf_opened" and range_header and not range_header.strip().startswith("bytes=0-"):
                return None  # a later range of a PDF already opened
            return action, "/".join(unquote(part) for part in match.groups())
    return None
