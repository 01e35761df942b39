"""What GET /api/runs/{id} shows: the run's record, its todo list and warnings derived from its events,
the pending interrupt, the LLM calls so far and the report once done."""

from __future__ import annotations

from rabbithole.api.runs.schemas import RunDetail, TodoItem
from rabbithole.api.runs.service import RunService


async def run_detail(service: RunService, run_id: str) -> RunDetail:
    view = await service.runner.view(run_id)
    record = view.record
    progress = service.progress(run_id)
    llm_calls = dict(view.result.llm_calls) if view.result is not None else dict(view.llm_calls or {})
    todo = progress.todo()
    if view.result is not None and view.result.tasks:
        todo = [TodoItem(id=t.id, title=t.title, state=t.state) for t in view.result.tasks]
    return RunDetail(
        run=record.summary(),
        mode=record.mode,
        overrides=record.overrides,
        todo=todo,
        interrupt=view.interrupt,
        warnings=view.result.warnings if view.result is not None else list(progress.warnings),
        llm_calls=llm_calls,
        last_event=progress.last_seq,
        result=view.result,
    )
