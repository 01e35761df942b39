"""The checkpoint serializer revives the synthesis subgraph's state (its section plans and drafts) as the
models they were, so a run stopped while it wrote its report resumes with them (the serializer's allowlist,
``research/state_types.CHECKPOINTED_TYPES``, blocks every type it does not name)."""

from __future__ import annotations

from pydantic import BaseModel

from rabbithole.research.checkpoint import _serde
from rabbithole.research.evidence.citations import DraftClaim
from rabbithole.research.models import TaskResult
from rabbithole.research.synthesis.sections import SectionDraft, SectionPlan


def revived(value: BaseModel) -> object:
    serde = _serde()
    return serde.loads_typed(serde.dumps_typed(value))


def test_the_synthesis_state_is_revived_as_its_models() -> None:
    draft = SectionDraft(
        index=0, task_id="t1", heading="Grenzwerte", claims=[DraftClaim(text="20 mSv.", evidence_ids=["e1"])]
    )
    plan = SectionPlan(index=0, task=TaskResult(task_id="t1", title="Grenzwerte"), heading="Grenzwerte")
    assert revived(draft) == draft
    assert revived(plan) == plan
