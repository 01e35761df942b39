"""The reference_followed event names where both ends of a reference can be opened: collection, document,
section and page (the referenced section's first page; none for a whole document)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rabbithole.core.models import Chunk
from rabbithole.references.expansion import GateRequest, TracedPassage
from rabbithole.references.grammar import detect_references
from rabbithole.references.resolver import ResolvedReference
from rabbithole.research.dig.followed import judged_event
from rabbithole.research.event_models import ReferenceFollowedEvent


def chunk(document: str, section: str, page: int) -> Chunk:
    return Chunk(
        id=f"{document}:{section}",
        collection="laws",
        document=document,
        ordinal=0,
        text="Die Kosten richten sich nach § 21 des Atomgesetzes.",
        start=0,
        end=50,
        page=page,
        page_end=page,
        section=section,
        heading="",
    )


@dataclass
class Passages:
    def section_passages(self, document: str, section: str) -> list[Chunk]:
        return [chunk(document, section, 12), chunk(document, section, 13)]


@dataclass
class Engine:
    passages: Passages


def request(section: str | None) -> GateRequest:
    source = chunk("AtKostV.pdf", "§ 1", 3)
    mention = detect_references(source.text)[0]
    target = ResolvedReference(reference=mention, document="AtG.pdf", section=section)
    return GateRequest(mention, target, TracedPassage(source, 0, 0.5))


def wire(event: ReferenceFollowedEvent) -> dict[str, Any]:
    """The event's fields as its stream carries them (its type apart)."""
    return event.model_dump(mode="json", by_alias=True, exclude={"type"})


def test_a_followed_reference_names_both_places_with_their_pages() -> None:
    payload = wire(judged_event("t1", request("§ 21"), Engine(Passages()), follow=True, depth=1))
    assert payload["from"] == {"collection": "laws", "document": "AtKostV.pdf", "section": "§ 1", "page": 3}
    assert payload["to"] == {"collection": "laws", "document": "AtG.pdf", "section": "§ 21", "page": 12}
    assert payload["mention"] == "§ 21 des Atomgesetzes" and payload["task_id"] == "t1"
    assert payload["depth"] == 1 and payload["follow"] is True and "type" not in payload


def test_a_whole_document_has_no_page_and_a_skipped_reference_is_not_looked_up() -> None:
    whole = wire(judged_event("t1", request(None), Engine(Passages()), follow=True, depth=1))
    assert whole["to"]["page"] is None and whole["to"]["document"] == "AtG.pdf"
    skipped = wire(judged_event("t1", request("§ 21"), Engine(Passages()), follow=False, depth=2))
    assert skipped["to"]["page"] is None and skipped["follow"] is False
