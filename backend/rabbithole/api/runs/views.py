"""What GET /api/runs/{id} shows: the run's record, its todo list and warnings derived from its events,
the pending interrupt, the LLM calls so far and the report once done. A run executing here is shown from
its live progress; any other run's events are read in a thread, never on the event loop."""

from __future__ import annotations

from rabbithole.api.runs.schemas import RunDetail
from rabbithole.api.runs.service import RunService
from rabbithole.research.event_models import TodoItem
from rabbithole.research.interrupts import interrupt_of_payload


async def run_detail(service: RunService, run_id: str) -> RunDetail:
    view = await service.runner.view(run_id)
    record = view.record
    result = view.result
    llm_calls = dict(result.llm_calls) if result is not None else dict(view.llm_calls or {})
    if result is not None and result.tasks:  # a finished run: its report holds the todo list and warnings
        todo = [TodoItem(id=t.id, title=t.title, state=t.state) for t in result.tasks]
        warnings = result.warnings
        last_event = await service.last_event(run_id)
    else:
        progress = await service.progress(run_id)
        todo = progress.todo()
        warnings = result.warnings if result is not None else list(progress.warnings)
        last_event = progress.last_seq
    return RunDetail(
        run=record.summary(),
        mode=record.mode,
        overrides=record.overrides,
        todo=todo,
        interrupt=interrupt_of_payload(view.interrupt),
        warnings=warnings,
        llm_calls=llm_calls,
        last_event=last_event,
        result=result,
    )
