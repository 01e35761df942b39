"""A fake Ollama server for tests, benchmarks and browser tests: no model, deterministic answers.

Start it with ``python -m rabbithole.devtools.fake_ollama --port 11435`` or, in Python::

    with FakeOllama() as fake:
        settings = fake.settings()          # LLMSettings pointing at it
        fake.script({"title": "x"}, schema="Plan")
        fake.fault("error", times=1)

See docs/testing.md.
"""

from rabbithole.devtools.fake_ollama.embeddings import embed_text
from rabbithole.devtools.fake_ollama.faults import Fault, FaultKind
from rabbithole.devtools.fake_ollama.runner import FakeOllama, FakeOllamaClient
from rabbithole.devtools.fake_ollama.schema_instance import generate_instance
from rabbithole.devtools.fake_ollama.server import create_app
from rabbithole.devtools.fake_ollama.state import DEFAULT_MODELS, FakeState, RecordedRequest, Script
from rabbithole.devtools.fake_ollama.text import PromptContext

__all__ = [
    "DEFAULT_MODELS",
    "FakeOllama",
    "FakeOllamaClient",
    "FakeState",
    "Fault",
    "FaultKind",
    "PromptContext",
    "RecordedRequest",
    "Script",
    "create_app",
    "embed_text",
    "generate_instance",
]
