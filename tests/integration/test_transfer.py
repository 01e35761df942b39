"""Moving an installation, as a user does it with the real command: an embedded data folder (a collection
ingested from a folder, one uploaded through the upload folder, a run with its events) exported and imported
into PostgreSQL + a Chroma server, then exported from there and imported into a new embedded folder. Each
command prints both sides' counts; searches answer the same everywhere; the uploaded PDF moves with its
record; an import into an installation that holds something is refused unless --replace."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.api_server import server_env
from fixtures.pdfs import build_law_folder, build_report_pdf
from fixtures.services import ServicesFactory
from rabbithole.core.config import VectorSettings
from rabbithole.services import Services

pytestmark = pytest.mark.timeout(900)

QUERIES = ("Ausnahmen bedürfen der Genehmigung", "measurement stations report", "Prüfung Anlage")


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rabbithole", *args], env=env, capture_output=True, text=True, timeout=600
    )


def _counts(output: str) -> dict[str, tuple[int, int]]:
    """The printed table: name -> (one side, the other side)."""
    rows: dict[str, tuple[int, int]] = {}
    for line in output.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
            rows[parts[0]] = (int(parts[1]), int(parts[2]))
    return rows


def _answers(services: Services) -> list[list[tuple[str, str, float]]]:
    return [
        [(h.chunk.document, h.chunk.id, h.score) for h in services.searcher.search(q, c, k=5, mode=m)]
        for q in QUERIES
        for c in ("laws", "inbox")
        for m in ("hybrid", "bm25", "vector")
    ]


def _same(found: list[list[tuple[str, str, float]]], expected: list[list[tuple[str, str, float]]]) -> None:
    """The same passages in the same order, their scores equal but for float32 rounding (the two stores
    compute cosine distances in their own builds)."""
    assert [[hit[:2] for hit in hits] for hits in found] == [[hit[:2] for hit in hits] for hits in expected]
    for hits, wanted in zip(found, expected, strict=True):
        assert [hit[2] for hit in hits] == pytest.approx([hit[2] for hit in wanted], abs=1e-4)


def _embedded_source(make_services: ServicesFactory, tmp_path: Path) -> Services:
    """An embedded installation: 'laws' from a folder, 'inbox' by upload, one finished run with events."""
    folder = build_law_folder(tmp_path / "kb" / "laws")
    done = _cli(server_env(tmp_path / "data"), "ingest", str(folder))
    assert done.returncode == 0, done.stderr
    services = make_services()
    services.create_collection("inbox")
    upload = services.uploads.save("inbox", "report.pdf", build_report_pdf(tmp_path / "r.pdf").read_bytes())
    report = services.ingestion_pipeline().ingest_files("inbox", upload.parent, [upload])
    assert report.added == ["report.pdf"]
    run = services.runs.create("Welche Genehmigung?", ["laws"], "quick", status="done")
    services.run_events.append(run.id, "status", {"status": "done"})
    services.run_events.append(run.id, "status", {"status": "done", "again": True})
    return services


def test_an_installation_moves_to_the_server_backend_and_back(
    make_services: ServicesFactory,
    postgres_url: str,
    chroma_vectors: VectorSettings,
    tmp_path: Path,
) -> None:
    source = _embedded_source(make_services, tmp_path)
    answers = _answers(source)
    assert len(answers) == 18 and all(answers[::3])  # every hybrid search finds something
    source.close()

    embedded = server_env(tmp_path / "data")
    exported = _cli(embedded, "export", str(tmp_path / "dump"))
    assert exported.returncode == 0, exported.stderr
    counts = _counts(exported.stdout)
    assert all(mine == theirs for mine, theirs in counts.values()), exported.stdout
    assert {k: v[0] for k, v in counts.items() if k in ("collections", "runs", "events", "uploads")} == {
        "collections": 2,
        "runs": 1,
        "events": 2,
        "uploads": 1,
    }
    assert counts["chunks"] == counts["vectors"] and counts["chunks"][0] > 0
    assert counts["documents"][0] == 3 and counts["pages"][0] >= 3

    server = server_env(
        tmp_path / "server-data",
        RABBITHOLE_DATABASE__URL=postgres_url,
        RABBITHOLE_VECTORS__URL=chroma_vectors.url,
        RABBITHOLE_VECTORS__DATABASE=chroma_vectors.database,
    )
    imported = _cli(server, "import", str(tmp_path / "dump"))
    assert imported.returncode == 0, imported.stderr
    assert _counts(imported.stdout) == counts
    assert "not moved: the research checkpoints" in imported.stdout
    assert postgres_url.split("@")[0].split(":")[-1] not in imported.stdout  # the password never printed

    on_server = make_services(
        storage={"data_dir": tmp_path / "server-data"},
        database={"url": postgres_url},
        vectors=chroma_vectors.model_dump(),
    )
    _same(_answers(on_server), answers)
    assert [r.question for r in on_server.runs.list()] == ["Welche Genehmigung?"]
    uploaded = on_server.catalog.document_source("inbox", "report.pdf")
    assert uploaded is not None and uploaded[0].is_relative_to(tmp_path / "server-data" / "uploads")
    original = next((tmp_path / "data" / "uploads").rglob("report.pdf"))
    assert uploaded[0].read_bytes() == original.read_bytes()

    refused = _cli(server, "import", str(tmp_path / "dump"))
    assert refused.returncode == 64
    assert "is not empty" in refused.stderr and "--replace" in refused.stderr
    on_server.close()

    back = _cli(server, "export", str(tmp_path / "dump-back"))
    assert back.returncode == 0, back.stderr
    assert _counts(back.stdout) == counts
    fresh = server_env(tmp_path / "fresh-data")
    returned = _cli(fresh, "import", str(tmp_path / "dump-back"))
    assert returned.returncode == 0, returned.stderr
    assert _counts(returned.stdout) == counts
    again = make_services(storage={"data_dir": tmp_path / "fresh-data"})
    _same(_answers(again), answers)
    assert again.catalog.document_source("inbox", "report.pdf") is not None
    assert [e.seq for e in again.run_events.after(again.runs.list()[0].id, 0)] == [1, 2]

    again.close()

    replaced = _cli(fresh, "import", "--replace", str(tmp_path / "dump"))
    assert replaced.returncode == 0, replaced.stderr
    assert _counts(replaced.stdout) == counts

    # the server installation goes on: a new upload gets a document id of its own
    on_server = make_services(
        storage={"data_dir": tmp_path / "server-data"},
        database={"url": postgres_url},
        vectors=chroma_vectors.model_dump(),
    )
    second = on_server.uploads.save("inbox", "second.pdf", original.read_bytes())
    assert on_server.ingestion_pipeline().ingest_files("inbox", second.parent, [second]).added == [
        "second.pdf"
    ]
