"""The reference graph of a collection: documents and sections as nodes, references as edges with counts.

Built by scanning every document's text with the grammar detector (whole texts, so citation chains are
never cut at chunk borders), placing each mention in the section of the chunk that holds it, and resolving
it (:class:`~rabbithole.references.resolver.ReferenceResolver` with the collection's section labels).

* nodes: ``doc:<file>`` (kind "document"), ``sec:<file>#<label>`` (kind "section"), ``ext:<name>`` (kind
  "external": a law or act named but not in the collection); ``cites``/``cited``: mentions out and in
  (a document's include its sections');
* edges: from the citing section (or document, outside any section) to the cited section, or to the
  document for a reference to a whole law ("nach dem Atomgesetz"), or to an external node;
  ``count`` = mentions (a mention citing one target several times, "§ 80 Absatz 1 und 2", counts once),
  ``internal`` = within one document, ``mentions`` = up to three examples. References of a section to
  itself (bare "Absatz 2") are counted in ``stats`` only;
* ``unresolved``: mentions without a target in the collection, per reason.

:meth:`ReferenceGraph.to_dict` is the `rabbithole graph --format json` shape,
:meth:`ReferenceGraph.to_graphml` GraphML (written with ``xml.etree``).
"""

from __future__ import annotations

import bisect
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rabbithole.core.models import Chunk
from rabbithole.references.grammar import detect_references
from rabbithole.references.models import Reference
from rabbithole.references.resolver import Citing, ReferenceResolver, SectionIndex, Unresolved
from rabbithole.registry.registry import DocumentRegistry

__all__ = ["GraphEdge", "GraphNode", "ReferenceGraph", "build_reference_graph"]

GRAPHML_NS = "http://graphml.graphdrawing.org/xmlns"
MAX_EXAMPLES = 3


@dataclass(slots=True)
class GraphNode:
    id: str
    kind: str  # document | section | external
    label: str
    document: str | None = None
    section: str | None = None
    title: str = ""  # document title or section heading
    cites: int = 0
    cited: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "label": self.label,
            "document": self.document,
            "section": self.section,
            "title": self.title,
            "cites": self.cites,
            "cited": self.cited,
        }


@dataclass(slots=True)
class GraphEdge:
    source: str
    target: str
    count: int = 0
    internal: bool = False
    mentions: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "count": self.count,
            "internal": self.internal,
            "mentions": list(self.mentions),
        }


@dataclass(slots=True)
class ReferenceGraph:
    collection: str
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    unresolved: dict[str, int]
    stats: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {
            "collection": self.collection,
            "nodes": [n.to_dict() for n in self.nodes],
            "edges": [e.to_dict() for e in self.edges],
            "unresolved": dict(self.unresolved),
            "stats": dict(self.stats),
        }

    def to_graphml(self) -> str:
        ET.register_namespace("", GRAPHML_NS)
        root = ET.Element(f"{{{GRAPHML_NS}}}graphml")
        node_keys = [("kind", "string"), ("label", "string"), ("document", "string"), ("section", "string"),
                     ("title", "string"), ("cites", "int"), ("cited", "int")]  # fmt: skip
        edge_keys = [("count", "int"), ("internal", "boolean"), ("mentions", "string")]
        for domain, keys in (("node", node_keys), ("edge", edge_keys)):
            for name, kind in keys:
                ET.SubElement(
                    root,
                    f"{{{GRAPHML_NS}}}key",
                    {"id": f"{domain[0]}_{name}", "for": domain, "attr.name": name, "attr.type": kind},
                )
        graph = ET.SubElement(
            root, f"{{{GRAPHML_NS}}}graph", {"id": self.collection or "references", "edgedefault": "directed"}
        )
        for node in self.nodes:
            element = ET.SubElement(graph, f"{{{GRAPHML_NS}}}node", {"id": node.id})
            values = node.to_dict()
            for name, _ in node_keys:
                value = values[name]
                if value is not None:
                    _data(element, f"n_{name}", value)
        for number, edge in enumerate(self.edges):
            element = ET.SubElement(
                graph,
                f"{{{GRAPHML_NS}}}edge",
                {"id": f"e{number}", "source": edge.source, "target": edge.target},
            )
            _data(element, "e_count", edge.count)
            _data(element, "e_internal", edge.internal)
            _data(element, "e_mentions", " | ".join(edge.mentions))
        ET.indent(root)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _data(parent: ET.Element, key: str, value: object) -> None:
    text = ("true" if value else "false") if isinstance(value, bool) else str(value)
    ET.SubElement(parent, f"{{{GRAPHML_NS}}}data", {"key": key}).text = text


def _section_id(document: str, section: str) -> str:
    return f"sec:{document}#{section}"


class _Builder:
    def __init__(self, collection: str) -> None:
        self.collection = collection
        self.nodes: dict[str, GraphNode] = {}
        self.edges: dict[tuple[str, str], GraphEdge] = {}
        self.unresolved: Counter[str] = Counter()
        self.stats: Counter[str] = Counter()

    def document(self, file_name: str, title: str = "") -> str:
        node_id = f"doc:{file_name}"
        if node_id not in self.nodes:
            self.nodes[node_id] = GraphNode(node_id, "document", file_name, file_name, None, title)
        return node_id

    def section(self, document: str, section: str, heading: str = "") -> str:
        node_id = _section_id(document, section)
        if node_id not in self.nodes:
            self.document(document)
            self.nodes[node_id] = GraphNode(node_id, "section", section, document, section, heading)
        elif heading and not self.nodes[node_id].title:
            self.nodes[node_id].title = heading
        return node_id

    def external(self, name: str) -> str:
        node_id = f"ext:{name}"
        if node_id not in self.nodes:
            self.nodes[node_id] = GraphNode(node_id, "external", name)
        return node_id

    def edge(self, source: str, target: str, mention: str, internal: bool) -> None:
        edge = self.edges.get((source, target))
        if edge is None:
            edge = self.edges[(source, target)] = GraphEdge(source, target, internal=internal)
        edge.count += 1
        text = " ".join(mention.split())
        if len(edge.mentions) < MAX_EXAMPLES and text not in edge.mentions:
            edge.mentions.append(text)
        for node_id, attr in ((source, "cites"), (target, "cited")):
            node = self.nodes[node_id]
            setattr(node, attr, getattr(node, attr) + 1)
            if node.kind == "section" and node.document is not None:  # documents count their sections'
                parent = self.nodes[f"doc:{node.document}"]
                setattr(parent, attr, getattr(parent, attr) + 1)

    def build(self) -> ReferenceGraph:
        order = {"document": 0, "section": 1, "external": 2}
        nodes = sorted(self.nodes.values(), key=lambda n: (order[n.kind], n.document or n.label, n.id))
        edges = sorted(self.edges.values(), key=lambda e: (-e.count, e.source, e.target))
        self.stats["nodes"] = len(nodes)
        self.stats["edges"] = len(edges)
        return ReferenceGraph(self.collection, nodes, edges, dict(self.unresolved), dict(self.stats))


def build_reference_graph(
    collection: str,
    texts: Mapping[str, str],
    chunks: Iterable[Chunk],
    registry: DocumentRegistry,
    *,
    detect: Callable[[str], Sequence[Reference]] = detect_references,
    titles: Mapping[str, str] | None = None,
) -> ReferenceGraph:
    """The graph of ``texts`` ({document: text}, as the catalog keeps it) whose ``chunks`` give sections."""
    by_document: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_document.setdefault(chunk.document, []).append(chunk)
    for items in by_document.values():
        items.sort(key=lambda c: (c.start, c.ordinal))
    paths: dict[str, dict[str, tuple[str, ...]]] = {}
    for doc, items in by_document.items():
        for c in items:
            if c.section:
                paths.setdefault(doc, {}).setdefault(c.section, c.section_path)
    resolver = ReferenceResolver(
        registry,
        SectionIndex(lambda doc: list(paths.get(doc, {})), lambda doc: list(paths.get(doc, {}).items())),
    )
    builder = _Builder(collection)
    headings = {
        (c.document, c.section): c.heading for items in by_document.values() for c in items if c.section
    }
    for document in sorted(set(texts) | set(by_document)):
        builder.document(document, (titles or {}).get(document, ""))
    for (file_name, label), heading in headings.items():
        assert label is not None
        builder.section(file_name, label, heading)
    for document in sorted(texts):
        items = by_document.get(document, [])
        starts = [c.start for c in items]
        counted: set[tuple[int, str]] = set()  # (mention start, target): "§ 80 Absatz 1 und 2" counts once
        for ref in detect(texts[document]):
            builder.stats["references"] += 1
            citing_chunk = _chunk_at(items, starts, ref.start)
            section = citing_chunk.section if citing_chunk is not None else None
            source = builder.section(document, section) if section else builder.document(document)
            resolved = resolver.resolve(ref, Citing(document, section))
            if resolved.reason is not None:
                builder.unresolved[resolved.reason.value] += 1
                name = resolved.target_name
                if name and resolved.reason in (Unresolved.EXTERNAL, Unresolved.UNKNOWN_DOCUMENT):
                    target = builder.external(name)
                    if (ref.start, target) not in counted:
                        counted.add((ref.start, target))
                        builder.edge(source, target, ref.mention, internal=False)
                continue
            assert resolved.document is not None
            targets = [builder.section(resolved.document, label) for label in resolved.labels] or [
                builder.document(resolved.document)
            ]  # a range with inserted sections, a division: every section it covers
            for target in targets:
                if target == source:
                    builder.stats["self_references"] += 1
                    continue
                if (ref.start, target) in counted:
                    continue
                counted.add((ref.start, target))
                builder.edge(source, target, ref.mention, internal=resolved.document == document)
    return builder.build()


def _chunk_at(chunks: Sequence[Chunk], starts: Sequence[int], offset: int) -> Chunk | None:
    """The chunk holding ``offset`` (chunks sorted by start; overlapping chunks share a section)."""
    index = bisect.bisect_right(starts, offset) - 1
    while index >= 0:
        chunk = chunks[index]
        if chunk.start <= offset < chunk.end:
            return chunk
        if chunk.end <= offset:
            return None
        index -= 1
    return None
