"""The ``reference_followed`` event: a reference the gate chose to follow, from the place it stands in to
the place it names, each with the collection and page where it can be opened (the app's reference graph
opens them in its viewer)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rabbithole.references.expansion import GateRequest


class ReferencePlace(BaseModel):
    """A place of the reference graph: a document, a section of it where known, and the page it starts on."""

    collection: str
    document: str
    section: str | None = None
    page: int | None = Field(
        None, description="The page the passage or section starts on; None: the document as a whole."
    )


class ReferenceFollowedEvent(BaseModel):
    """One reference judged by the gate (``follow``); only the followed ones are emitted."""

    model_config = ConfigDict(populate_by_name=True)

    type: Literal["reference_followed"] = "reference_followed"
    task_id: str
    from_: ReferencePlace = Field(alias="from")
    mention: str
    to: ReferencePlace
    follow: bool
    depth: int

    def payload(self) -> dict[str, Any]:
        """The event's fields for ``events.emit`` (its type apart)."""
        return self.model_dump(mode="json", by_alias=True, exclude={"type"})


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
