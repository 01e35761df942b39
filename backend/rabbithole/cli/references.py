"""`rabbithole refs`, `rabbithole trace` and `rabbithole graph`: the reference engine from the command line.

Other tools parse the JSON of these commands; keep the shapes stable (docs/references.md):

* ``refs --collection C [--source FILE] --json`` (text on stdin): ``[{mention, start, end, type, section,
  absatz, satz, nummer, target_document, external}]``;
* ``trace "QUESTION" --collection C [--depth D] [--k K] --json``: ``{query, passages: [{id, document, page,
  section, text, depth, via: null | {from, mention}, score}], unresolved: [...]}``;
* ``graph --collection C --format json|graphml``: nodes, edges, unresolved counts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from rabbithole.cli.errors import handle_errors
from rabbithole.cli.services import open_services
from rabbithole.core.errors import InvalidRequestError

if TYPE_CHECKING:  # the reference engine is imported by the commands that run it (fast CLI start-up)
    from rabbithole.references.detector import DetectorMode
    from rabbithole.services import Services


def _source_document(services: Services, collection: str, source: str | None) -> str | None:
    if source is None:
        return None
    names = {d.file_name for d in services.catalog.documents(collection)}
    if source in names:
        return source
    found = services.registry(collection).resolve(source)
    if found is None:
        raise InvalidRequestError(
            f"--source '{source}' is not a document of collection '{collection}' "
            f"(documents: {', '.join(sorted(names)) or 'none'})"
        )
    return found.document


def _section_label(section: str | None) -> str | None:
    """ "§ 7", "7" or "Anlage 2" as a section label ("§ 7", "Anlage 2")."""
    if section is None or not section.strip():
        return None
    label = " ".join(section.split())
    return f"§ {label}" if label[0].isdigit() else label


def _detector_mode(services: Services, detector: str | None) -> DetectorMode:
    from rabbithole.references.detector import DETECTOR_MODES

    mode = detector or services.settings.references.detector
    if mode not in DETECTOR_MODES:
        raise typer.BadParameter(f"--detector must be one of {', '.join(DETECTOR_MODES)}")
    return mode  # type: ignore[return-value]


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def refs(
        collection: str = typer.Option(
            ..., "--collection", "-c", help="Collection whose documents are targets."
        ),
        source: str | None = typer.Option(
            None, "--source", "-s", help="Document the text comes from (internal references resolve to it)."
        ),
        section: str | None = typer.Option(
            None,
            "--section",
            help='Section the text comes from ("§ 7", "Anlage 2"): relative references resolve to it.',
        ),
        detector: str | None = typer.Option(
            None, help="regex, llm or hybrid (default: settings.references.detector)."
        ),
        as_json: bool = typer.Option(False, "--json", help="JSON output."),
    ) -> None:
        """Detect the references in the text on standard input and resolve their target documents."""
        text = sys.stdin.read()
        with open_services() as services:
            services.catalog.require_collection(collection)
            document = _source_document(services, collection, source)
            registry = services.registry(collection)
            mode = _detector_mode(services, detector)
            llm = services.llm if mode != "regex" else None
            from rabbithole.references.detector import build_detector, resolving
            from rabbithole.references.report import reference_rows
            from rabbithole.references.resolver import Citing
            from rabbithole.references.store_adapter import CollectionPassages

            resolver = CollectionPassages(collection, services.catalog).resolver(registry)
            citing = Citing(document, _section_label(section))
            detect = build_detector(
                services.settings.references,
                llm,
                mode=mode,
                canonical_law=lambda name: r.document if (r := resolver.resolve_name(name)) else None,
                verify=resolving(lambda ref: resolver.resolve(ref, citing)),
            )
            detection = detect.run(text)
            for dropped, why in detection.rejected:
                typer.echo(f"dropped model reference {' '.join(dropped.mention.split())!r}: {why}", err=True)
            items: list[dict[str, Any]] = []
            for ref in detection.references:
                items.extend(reference_rows(ref, resolver.resolve(ref, citing)))
        if as_json:
            typer.echo(json.dumps(items, ensure_ascii=False, indent=2))
            return
        from rich.console import Console  # rich where a command prints: the CLI starts without it
        from rich.table import Table

        table = Table("mention", "type", "§", "Abs.", "Satz", "Nr.", "target")
        for item in items:
            shown = item["target_document"] or ("external" if item["external"] else "—")
            table.add_row(
                " ".join(item["mention"].split()),
                item["type"],
                item["section"] or "",
                item["absatz"] or "",
                item["satz"] or "",
                item["nummer"] or "",
                shown,
            )
        console = Console()
        console.print(table if items else "no references found")

    @app.command()
    @handle_errors
    def trace(
        question: str = typer.Argument(..., help="The question, in German or English."),
        collection: str = typer.Option(..., "--collection", "-c", help="The collection."),
        depth: int | None = typer.Option(
            None,
            "--depth",
            "-d",
            min=0,
            max=10,
            help="Reference hops (default settings.references.max_depth).",
        ),
        k: int | None = typer.Option(
            None, "--k", "-k", min=1, max=200, help="Search hits to start from (default references.seeds)."
        ),
        as_json: bool = typer.Option(False, "--json", help="JSON output."),
    ) -> None:
        """Search, then follow the references in the passages found (grammar detector)."""
        with open_services() as services:
            engine = services.reference_engine(collection)
            traced = engine.trace(question, depth=depth, k=k)
        data = traced.to_dict()
        if as_json:
            typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
            return
        from rich.console import Console

        console = Console()
        result = traced.result
        console.print(
            f"[bold]{len(result.passages)} passages[/], {result.tokens} of {result.budget} tokens",
            highlight=False,
        )
        for p in data["passages"]:
            where = f"{p['document']} p. {p['page']}" + (f" {p['section']}" if p["section"] else "")
            via = f"  [dim]← via “{' '.join(p['via']['mention'].split())}”[/]" if p["via"] else ""
            score = f"{p['score']:.3f}" if p["score"] is not None else "–"
            console.print(f"{'  ' * p['depth']}[bold]{where}[/] [dim]{score}[/]{via}", highlight=False)
        if data["unresolved"]:
            console.print(f"[bold]unresolved[/] ({len(data['unresolved'])}):", highlight=False)
            for u in data["unresolved"]:
                mention = " ".join(u["mention"].split())
                console.print(f"  {mention}  [dim]{u['reason']}[/]", highlight=False)

    @app.command()
    @handle_errors
    def graph(
        collection: str = typer.Option(..., "--collection", "-c", help="The collection."),
        fmt: str = typer.Option("json", "--format", "-f", help="json or graphml."),
        output: Path | None = typer.Option(
            None, "--output", "-o", help="Write to this file (default stdout)."
        ),
    ) -> None:
        """The collection's reference graph: documents and sections as nodes, references as edges."""
        if fmt not in ("json", "graphml"):
            raise typer.BadParameter("--format must be json or graphml")
        with open_services() as services:
            services.catalog.require_collection(collection)
            documents = services.catalog.documents(collection)
            from rabbithole.references.graph import build_reference_graph

            built = build_reference_graph(
                collection,
                services.catalog.document_texts(collection),
                services.catalog.chunks(collection),
                services.registry(collection),
                titles={d.file_name: d.title for d in documents},
            )
        text = (
            json.dumps(built.to_dict(), ensure_ascii=False, indent=2) + "\n"
            if fmt == "json"
            else built.to_graphml()
        )
        if output is not None:
            output.write_text(text, encoding="utf-8")
        else:
            typer.echo(text, nl=False)
