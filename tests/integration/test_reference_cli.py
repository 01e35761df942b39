"""`rabbithole refs`, `trace` and `graph`: the real CLI (a subprocess) against the ingested sample."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from fixtures.sample_index import SAMPLE_COLLECTION, sample_env
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.references.llm_detector import LLMReferenceList
from rabbithole.services import Services

QUESTION = "Wann müssen Strahlenschutzbereiche eingerichtet werden, und welche Dosisgrenzwerte gelten?"
REFS_TEXT = (
    "Die Genehmigung nach § 7 AtG, die Grenzwerte nach § 80 Absatz 1 und 2 des Strahlenschutzgesetzes,\n"
    "die Pflichten nach § 5 Absatz 2 und die Richtlinie 2013/59/Euratom."
)
REF_KEYS = {
    "detail",
    "label",
    "sections",
    "reason",
    "mention",
    "start",
    "end",
    "type",
    "section",
    "absatz",
    "satz",
    "nummer",
    "target_document",
    "external",
}


def rabbithole(
    services: Services, *args: str, stdin: str = "", expect: int = 0, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "rabbithole", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**sample_env(services), **(env or {})},
        timeout=300,
        check=False,
    )
    assert done.returncode == expect, done.stderr
    return done


def refs_json(services: Services, *args: str, text: str = REFS_TEXT) -> list[dict[str, Any]]:
    out = rabbithole(services, "refs", "--collection", SAMPLE_COLLECTION, *args, "--json", stdin=text)
    data: list[dict[str, Any]] = json.loads(out.stdout)
    return data


def test_refs_json_shape_and_targets(sample_index: Services) -> None:
    items = refs_json(sample_index, "--source", "StrlSchV.pdf")
    assert all(set(item) == REF_KEYS for item in items)  # the original keys and detail/label/sections/reason
    for item in items:
        assert REFS_TEXT[item["start"] : item["end"]] == item["mention"]
    by_section = {(i["section"], i["absatz"]): i for i in items if i["section"]}
    assert by_section[("7", None)]["target_document"] == "AtG.pdf"
    assert by_section[("80", "1")]["target_document"] == "StrlSchG.pdf"
    assert by_section[("80", "2")]["target_document"] == "StrlSchG.pdf"
    assert by_section[("80", "2")]["mention"] == "§ 80 Absatz 1 und 2 des Strahlenschutzgesetzes"
    internal = by_section[("5", "2")]
    assert (internal["type"], internal["target_document"], internal["external"]) == (
        "section",
        "StrlSchV.pdf",
        False,
    )
    eu = next(i for i in items if i["type"] == "eu_act")
    assert (eu["external"], eu["target_document"]) == (True, None)


def test_refs_without_source_leaves_internal_targets_open(sample_index: Services) -> None:
    items = refs_json(sample_index)
    internal = next(i for i in items if i["section"] == "5")
    assert internal["target_document"] is None
    assert next(i for i in items if i["section"] == "7")["target_document"] == "AtG.pdf"
    # --source also takes a name the registry knows
    named = refs_json(sample_index, "--source", "StrlSchV")
    assert next(i for i in named if i["section"] == "5")["target_document"] == "StrlSchV.pdf"


def test_refs_table_and_errors(sample_index: Services) -> None:
    table = rabbithole(sample_index, "refs", "-c", SAMPLE_COLLECTION, "-s", "AtG.pdf", stdin=REFS_TEXT).stdout
    assert "AtG.pdf" in table and "StrlSchG.pdf" in table and "external" in table
    bad = rabbithole(sample_index, "refs", "-c", SAMPLE_COLLECTION, "-s", "Nope.pdf", stdin="§ 1", expect=64)
    assert "Nope.pdf" in bad.stderr
    missing = rabbithole(sample_index, "refs", "-c", "no-such-collection", stdin="§ 1", expect=66)
    assert "no-such-collection" in missing.stderr
    assert (
        json.loads(rabbithole(sample_index, "refs", "-c", SAMPLE_COLLECTION, "--json", stdin="").stdout) == []
    )


def test_refs_hybrid_detector_checks_model_references(
    sample_index: Services, fake_ollama: FakeOllama
) -> None:
    text = (
        "Die in der vorgenannten Verordnung genannten Werte, § 7 AtG und die Strahlenschutzverordnung "
        "in ihrem § 52."
    )
    answer = [
        {"mention": "der vorgenannten Verordnung", "kind": "law", "law": None},  # names nothing
        {"mention": "§ 7 AtG", "kind": "section", "section": "7", "law": "AtG"},  # the grammar has it
        {"mention": "§ 12 des Erfundenengesetzes", "kind": "section", "section": "12"},  # not in the text
        {"mention": "Strahlenschutzverordnung in ihrem § 52", "kind": "section", "section": "52",
         "law": "Strahlenschutzverordnung"},  # completes the grammar's internal § 52
    ]  # fmt: skip
    fake_ollama.script({"references": answer}, schema=LLMReferenceList)
    env = {"RABBITHOLE_LLM__BASE_URL": fake_ollama.url, "RABBITHOLE_LLM__PROVIDER": "ollama"}
    out = rabbithole(
        sample_index, "refs", "-c", SAMPLE_COLLECTION, "-s", "AtG.pdf", "--detector", "hybrid", "--json",
        stdin=text, env=env,
    )  # fmt: skip
    items = json.loads(out.stdout)
    assert [(i["mention"], i["section"], i["target_document"]) for i in items] == [
        ("§ 7 AtG", "7", "AtG.pdf"),
        ("die Strahlenschutzverordnung", None, "StrlSchV.pdf"),
        ("Strahlenschutzverordnung in ihrem § 52", "52", "StrlSchV.pdf"),
    ]
    assert "dropped model reference 'der vorgenannten Verordnung'" in out.stderr
    assert len(fake_ollama.model_requests()) == 1
    plain = rabbithole(
        sample_index, "refs", "-c", SAMPLE_COLLECTION, "-s", "AtG.pdf", "--json", stdin=text, env=env
    )
    assert [i["section"] for i in json.loads(plain.stdout)] == ["7", None, "52"]  # regex: the default
    assert len(fake_ollama.model_requests()) == 1


def test_refs_reports_annexes_articles_relative_and_historical(sample_index: Services) -> None:
    text = (
        "nach Anlage 4 Tabelle 1 Spalte 2 der Strahlenschutzverordnung und in den Anlagen 7 und 8;\n"
        "Artikel 83 der Verordnung (EU) 2016/679; Absatz 3 gilt entsprechend;\n"
        "die §§ 7 bis 8 des Atomgesetzes; § 5 der Strahlenschutzverordnung vom 20. Juli 2001;\n"
        "Teil 2 dieses Gesetzes; das zuletzt durch Artikel 2 des Gesetzes vom 20. Mai 2021 (BGBl. I S. 1194) "
        "geändert worden ist; siehe StrlSchV."
    )
    items = refs_json(sample_index, "--source", "StrlSchG.pdf", "--section", "§ 7", text=text)
    rows = [(i["section"], i["target_document"], i["external"], i["reason"]) for i in items]
    assert rows[:5] == [
        ("Anlage 4", "StrlSchV.pdf", False, None),
        ("Anlage 7", "StrlSchG.pdf", False, None),
        ("Anlage 8", "StrlSchG.pdf", False, None),
        ("Artikel 83", None, True, "external"),
        ("7", "StrlSchG.pdf", False, None),
    ]
    assert items[0]["detail"] == "Tabelle 1 Spalte 2" and items[0]["label"] == "Anlage 4"
    ranged = [i["section"] for i in items if i["mention"] == "§§ 7 bis 8 des Atomgesetzes"]
    assert ranged[:3] == ["7", "7a", "7b"] and ranged[-1] == "8"
    old = next(i for i in items if i["mention"] == "§ 5 der Strahlenschutzverordnung")
    assert (old["target_document"], old["external"], old["reason"]) == (None, True, "historical_version")
    division = next(i for i in items if i["type"] == "document_section")
    assert division["section"] == "Teil 2" and division["sections"][0] == "§ 6"
    assert not any("2021" in i["mention"] or i["section"] == "Artikel 2" for i in items)  # amendment note
    assert items[-1]["mention"] == "StrlSchV" and items[-1]["target_document"] == "StrlSchV.pdf"
    # relative references without --section keep no section
    bare = refs_json(sample_index, "--source", "StrlSchG.pdf", text="Absatz 3 gilt entsprechend.")
    assert [(i["section"], i["target_document"], i["reason"]) for i in bare] == [
        (None, "StrlSchG.pdf", "no_citing_section")
    ]


def trace_json(services: Services, *args: str) -> dict[str, Any]:
    out = rabbithole(services, "trace", QUESTION, "--collection", SAMPLE_COLLECTION, *args, "--json")
    data: dict[str, Any] = json.loads(out.stdout)
    return data


def test_trace_depth_zero_equals_search(sample_index: Services) -> None:
    traced = trace_json(sample_index, "--depth", "0", "--k", "4")
    search = rabbithole(sample_index, "search", QUESTION, "-c", SAMPLE_COLLECTION, "--k", "4", "--json")
    assert [p["id"] for p in traced["passages"]] == [r["chunk_id"] for r in json.loads(search.stdout)]
    assert all(p["depth"] == 0 and p["via"] is None for p in traced["passages"])


def test_trace_json_shape_and_provenance(sample_index: Services) -> None:
    data = trace_json(sample_index, "--depth", "2", "--k", "3")
    assert set(data) == {"query", "passages", "unresolved"} and data["query"] == QUESTION
    keys = {"id", "document", "page", "section", "text", "depth", "via", "score"}
    seen: dict[str, dict[str, Any]] = {}
    for p in data["passages"]:
        assert set(p) == keys
        assert isinstance(p["score"], float) and isinstance(p["page"], int)
        if p["depth"] == 0:
            assert p["via"] is None
        else:
            assert set(p["via"]) == {"from", "mention"}
            source = seen[p["via"]["from"]]  # reached from a passage listed before it
            assert source["depth"] == p["depth"] - 1
        seen[p["id"]] = p
    assert len(seen) == len(data["passages"]) > 3
    assert max(p["depth"] for p in data["passages"]) == 2
    for u in data["unresolved"]:
        assert set(u) == {"from", "document", "mention", "type", "target", "section", "reason"}


def test_trace_readable_output(sample_index: Services) -> None:
    out = rabbithole(
        sample_index, "trace", QUESTION, "-c", SAMPLE_COLLECTION, "--depth", "1", "--k", "2"
    ).stdout
    assert "passages" in out and "tokens" in out and "via" in out


def test_trace_rejects_a_bad_depth(sample_index: Services) -> None:
    rabbithole(sample_index, "trace", QUESTION, "-c", SAMPLE_COLLECTION, "--depth", "-1", expect=2)


@pytest.fixture(scope="module")
def graph_json(sample_index: Services) -> dict[str, Any]:
    out = rabbithole(sample_index, "graph", "--collection", SAMPLE_COLLECTION, "--format", "json")
    data: dict[str, Any] = json.loads(out.stdout)
    return data


def test_graph_json(graph_json: dict[str, Any]) -> None:
    assert set(graph_json) == {"collection", "nodes", "edges", "unresolved", "stats"}
    nodes = {n["id"]: n for n in graph_json["nodes"]}
    assert len(nodes) == len(graph_json["nodes"])
    assert sum(1 for n in nodes.values() if n["kind"] == "document") == 17
    for edge in graph_json["edges"]:
        assert edge["source"] in nodes and edge["target"] in nodes and edge["count"] >= 1
    edges = {(e["source"], e["target"]): e for e in graph_json["edges"]}
    cross = edges[("sec:StrlSchV.pdf#§ 52", "sec:StrlSchG.pdf#§ 80")]
    assert not cross["internal"]
    assert "§ 80 Absatz 1 und 2 des Strahlenschutzgesetzes" in cross["mentions"]
    assert ("sec:AtVfV.pdf#§ 1", "sec:AtG.pdf#§ 7") in edges
    assert edges[("sec:AtG.pdf#§ 19a", "sec:AtG.pdf#Anlage 4")]["internal"]
    assert nodes["ext:Bundesberggesetz"]["kind"] == "external" and nodes["ext:Bundesberggesetz"]["cited"] > 0
    assert nodes["doc:StrlSchG.pdf"]["cited"] >= nodes["sec:StrlSchG.pdf#§ 80"]["cited"] > 0
    assert graph_json["unresolved"]["unknown_document"] > 0 and graph_json["unresolved"]["external"] > 0


def test_graph_graphml_is_valid(sample_index: Services, graph_json: dict[str, Any], tmp_path: Path) -> None:
    target = tmp_path / "refs.graphml"
    rabbithole(sample_index, "graph", "-c", SAMPLE_COLLECTION, "--format", "graphml", "--output", str(target))
    root = ET.parse(target).getroot()
    assert root.tag == "{http://graphml.graphdrawing.org/xmlns}graphml"
    graph = nx.read_graphml(target)
    assert graph.is_directed()
    assert graph.number_of_nodes() == len(graph_json["nodes"])
    assert graph.number_of_edges() == len(graph_json["edges"])
    edge = graph.edges["sec:StrlSchV.pdf#§ 52", "sec:StrlSchG.pdf#§ 80"]
    assert edge["count"] >= 1 and edge["internal"] is False
    assert graph.nodes["doc:AtG.pdf"]["kind"] == "document"
    rabbithole(sample_index, "graph", "-c", SAMPLE_COLLECTION, "--format", "dot", expect=2)
