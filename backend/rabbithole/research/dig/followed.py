"""The ``reference_followed`` event: a reference the gate chose to follow, from the place it stands in to
the place it names, each with the collection and page where it can be opened (the app's reference graph
opens them in its viewer)."""

from __future__ import annotations

from typing import Any

from rabbithole.references.expansion import GateRequest
from rabbithole.research.event_models import ReferenceFollowedEvent, ReferencePlace


def target_page(engine: Any, request: GateRequest) -> int | None:
    """The page the referenced section starts on (its first passage); None for a whole document."""
    target = request.target
    if target.document is None or target.section is None:
        return None
    chunks = engine.passages.section_passages(target.document, target.section)
    return int(chunks[0].page) if chunks else None


def judged_event(
    task_id: str, request: GateRequest, engine: Any, *, follow: bool, depth: int
) -> ReferenceFollowedEvent:
    """The event of one judged reference; the target's page is looked up only for a followed one."""
    source = request.source.chunk
    return ReferenceFollowedEvent(
        task_id=task_id,
        from_=ReferencePlace(
            collection=source.collection, document=source.document, section=source.section, page=source.page
        ),
        mention=" ".join(request.reference.mention.split()),
        to=ReferencePlace(
            collection=source.collection,
            document=request.target.document or source.document,
            section=request.target.section,
            page=target_page(engine, request) if follow else None,
        ),
        follow=follow,
        depth=depth,
    )
