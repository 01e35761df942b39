"""The types the research graphs keep in their checkpointed state: the serializer's allowlist (nothing else
is revived from the checkpoint database)."""

from __future__ import annotations

import inspect

from pydantic import BaseModel

from rabbithole.research import models
from rabbithole.research.evidence import citations
from rabbithole.research.report import models as report_models
from rabbithole.research.synthesis import sections as synthesis_sections

CHECKPOINTED_TYPES: tuple[type[BaseModel], ...] = tuple(
    obj
    for module in (models, citations, report_models, synthesis_sections)
    for _, obj in inspect.getmembers(module, inspect.isclass)
    if issubclass(obj, BaseModel) and obj.__module__ == module.__name__
)
