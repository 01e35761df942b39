"""The two assistants: Rabbithole's research graph and its report graph. Their ids are fixed (uuid5 of the
graph's name); the graph's name is accepted as its id too, as LangGraph's server does."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Literal

from fastapi import APIRouter

from rabbithole.api.agent_protocol.schemas import Assistant, AssistantSchemas, AssistantSearch
from rabbithole.api.runs.schemas import CreateRun
from rabbithole.core.errors import NotFoundError
from rabbithole.research.context import RunOverrides
from rabbithole.research.models import ResearchResult

router = APIRouter(tags=["agent protocol"])

GraphId = Literal["research", "report"]
_NAMESPACE = uuid.UUID("6b1c0f5e-8d0a-4c5e-9a57-2b6d6a1f7e21")
_SINCE = datetime(2026, 1, 1, tzinfo=UTC)
_DESCRIPTIONS: dict[GraphId, str] = {
    "research": "Research over PDF collections: clarification and plan interrupts (mode interactive), or "
    "none (mode quick); the answer is a report with verified citations.",
    "report": "A long report over PDF collections: clarification and outline interrupts.",
}


def assistant_id(graph: GraphId) -> str:
    return str(uuid.uuid5(_NAMESPACE, graph))


def _assistant(graph: GraphId) -> Assistant:
    return Assistant(
        assistant_id=assistant_id(graph),
        graph_id=graph,
        name=graph,
        description=_DESCRIPTIONS[graph],
        created_at=_SINCE,
        updated_at=_SINCE,
    )


ASSISTANTS: tuple[Assistant, ...] = (_assistant("research"), _assistant("report"))


def find_assistant(id_or_graph: str) -> Assistant:
    """The assistant of this id or graph name (NotFoundError: 404)."""
    for assistant in ASSISTANTS:
        if id_or_graph in (assistant.assistant_id, assistant.graph_id):
            return assistant
    raise NotFoundError(f"no assistant '{id_or_graph}': the assistants are 'research' and 'report'")


@router.post("/assistants/search")
async def search_assistants(body: AssistantSearch) -> list[Assistant]:
    found = [
        a
        for a in ASSISTANTS
        if body.graph_id in (None, a.graph_id) and body.name in (None, a.name) and not body.metadata
    ]
    return found[body.offset : body.offset + body.limit]


@router.get("/assistants/{assistant_id}")
async def get_assistant(assistant_id: str) -> Assistant:
    return find_assistant(assistant_id)


@router.get("/assistants/{assistant_id}/schemas")
async def get_assistant_schemas(assistant_id: str) -> AssistantSchemas:
    """Input: the question, collections and options as POST /api/runs takes them; context: the per-run
    settings; output: the report."""
    assistant = find_assistant(assistant_id)
    return AssistantSchemas(
        graph_id=assistant.graph_id,
        input_schema=CreateRun.model_json_schema(),
        output_schema=ResearchResult.model_json_schema(),
        state_schema=ResearchResult.model_json_schema(),
        config_schema={"type": "object"},
        context_schema=RunOverrides.model_json_schema(),
    )
