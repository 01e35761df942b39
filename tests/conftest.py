"""Shared test configuration. Fixtures live in tests/fixtures/, one module per concern."""

from __future__ import annotations

import os

# Nothing may reach a model hub: every model is shipped in a package or faked.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

pytest_plugins: list[str] = [
    "fixtures.isolation",
    "fixtures.sample_kb",
    "fixtures.pdfs",
    "fixtures.fake_ollama",
    "fixtures.services",
    "fixtures.sample_index",
    "fixtures.research",
    "fixtures.run_kb",
    "fixtures.postgres",
    "fixtures.chroma_server",
    "fixtures.team",
    "fixtures.accounts",
    "fixtures.ocr",
]
