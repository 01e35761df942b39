"""A section shown while the model writes it: the ``draft_text`` event.

The section writer's structured call is streamed (``llm_step.ask(on_text=...)``); ``SectionPreview`` reads
the answer so far (``llm.partial_json``) and emits the section's sentences so far, throttled: when a
sentence is complete, else at most every ``THROTTLE_S`` per section, so that a run's log holds a few
events per section, not one per token. The model never types evidence: a cited id is checked against the
evidence the run retrieved for the section, and only a checked one is sent with where it points (its
document, page and the quote's offsets); the app links only those. The streamed text is the model's
draft: ``draft_section`` follows with the section as written and guarded, and the report replaces both.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rabbithole.llm.partial_json import OpenDict, OpenStr, parse_partial
from rabbithole.research.event_models import GraphEvent
from rabbithole.research.models import Evidence, SourceKind

#: Seconds between two ``draft_text`` events of one section while no sentence completes.
THROTTLE_S = 0.15


class DraftCitation(BaseModel):
    """Where a checked evidence id of a draft points: the page and the quote's offsets on it."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    evidence_id: str
    collection: str
    document: str
    page: int
    section: str | None = None
    quote: str
    start: int
    end: int
    kind: SourceKind = "document"
    url: str | None = None


class DraftTextClaim(BaseModel):
    """A sentence of the draft so far: ``complete`` false while the model is still writing it."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    text: str
    evidence_ids: list[str] = Field(
        description="The ids the model wrote for it, complete ones only (checked or not)."
    )
    complete: bool


class DraftTextEvent(GraphEvent):
    """``draft_text``: a section's sentences so far, as the model writes them."""

    type: Literal["draft_text"] = "draft_text"
    index: int
    heading: str
    task_id: str
    attempt: int = Field(description="1: the first version; 2: the rewrite of the remediation pass.")
    claims: list[DraftTextClaim]
    citations: dict[str, DraftCitation] = Field(
        description="The checked evidence ids first cited in this section's stream since its previous "
        "draft_text event, with where they point (an id points at the same evidence for the whole run). "
        "An id the run did not retrieve is never here."
    )


def citation_of(evidence: Evidence) -> DraftCitation:
    return DraftCitation(
        evidence_id=evidence.id,
        collection=evidence.collection,
        document=evidence.document,
        page=evidence.page,
        section=evidence.section,
        quote=evidence.quote,
        start=evidence.start,
        end=evidence.end,
        kind=evidence.kind,
        url=evidence.url,
    )


def claims_of(answer: Any) -> list[DraftTextClaim]:
    """The sentences an answer so far holds ({claims: [{text, evidence}]}), the last one possibly open."""
    if not isinstance(answer, dict) or not isinstance(answer.get("claims"), list):
        return []
    out: list[DraftTextClaim] = []
    for item in answer["claims"]:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            continue
        cited = item.get("evidence")
        ids = (
            [i for i in cited if isinstance(i, str) and not isinstance(i, OpenStr)]
            if isinstance(cited, list)
            else []
        )
        complete = not isinstance(item, OpenDict)
        if item["text"].strip() or complete:
            out.append(DraftTextClaim(text=item["text"], evidence_ids=ids, complete=complete))
    return out


class SectionPreview:
    """Feeds on a section's answer so far and emits ``draft_text`` events, throttled."""

    def __init__(
        self,
        *,
        index: int,
        heading: str,
        task_id: str,
        attempt: int,
        evidence: Sequence[Evidence],
        emit: Callable[[DraftTextEvent], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.index = index
        self.heading = heading
        self.task_id = task_id
        self.attempt = attempt
        self.evidence = {e.id: e for e in evidence}
        self.emit = emit
        self.clock = clock
        self.sent_ids: set[str] = set()
        self.last_at = -THROTTLE_S
        self.last_claims: list[DraftTextClaim] = []
        #: how much of the answer was looked at, and whether a "}" came since the last parse
        self.read = 0
        self.pending = False

    def __call__(self, text: str) -> None:
        """The answer so far (of the current attempt: a retry starts again from its beginning)."""
        now = self.clock()
        added = text[self.read :] if len(text) >= self.read else text  # shorter: a retry began
        self.read = len(text)
        self.pending |= "}" in added
        if now - self.last_at < THROTTLE_S and not self.pending:
            return  # no sentence can have completed since the last look: look again at the next chance
        self.pending = False
        claims = claims_of(parse_partial(text))
        if not claims or claims == self.last_claims:
            return
        completed = sum(c.complete for c in claims) != sum(c.complete for c in self.last_claims)
        if now - self.last_at < THROTTLE_S and not completed:
            return
        self.last_claims = claims
        self.last_at = now
        new = [i for c in claims for i in c.evidence_ids if i in self.evidence and i not in self.sent_ids]
        self.sent_ids.update(new)
        self.emit(
            DraftTextEvent(
                index=self.index,
                heading=self.heading,
                task_id=self.task_id,
                attempt=self.attempt,
                claims=claims,
                citations={i: citation_of(self.evidence[i]) for i in dict.fromkeys(new)},
            )
        )
