"""A bounded property-based run over the whole OpenAPI document (schemathesis, against a real uvicorn):
no request, valid or not, gets a server error, an undocumented status or a body that breaks the schema.
A longer run of the same checks: see docs/api.md ("Contract tests")."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

from fixtures.api_server import serving, wait_ready
from fixtures.pdfs import build_legal_pdf
from rabbithole.api.main import create_app
from rabbithole.core.config import load_settings
from rabbithole.services import Services


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[schemathesis.BaseSchema]:
    root = tmp_path_factory.mktemp("schemathesis")
    folder = root / "kb" / "laws"
    folder.mkdir(parents=True)
    build_legal_pdf(folder / "PrüfG.pdf")
    config = load_settings(storage={"data_dir": root / "data"})
    with Services(config) as services:
        services.ingestion_pipeline().ingest(folder)
    with serving(create_app(config)) as url:
        wait_ready(url)
        yield schemathesis.openapi.from_url(f"{url}/openapi.json")


#: Examples per operation and generation mode (valid and invalid data): bounded, so the suite stays quick.
#: positive_data_acceptance is left out: values the schema allows may still be refused with a 4xx that
#: says why (page_from after page_to, a collection that does not exist).
EXAMPLES = 40


def test_the_api_keeps_its_contract(api_schema: schemathesis.BaseSchema) -> None:
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 4
    negative_skipped: list[str] = []
    for operation, mode in itertools.product(operations, GenerationMode):

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
            database=None,
        )
        def keeps_contract(case: schemathesis.Case) -> None:
            case.call_and_validate(excluded_checks=[positive_data_acceptance])

        try:
            keeps_contract()
        except Unsatisfiable:
            # the schema admits every value of every input of this operation: nothing invalid to send
            assert mode is GenerationMode.NEGATIVE, operation.label
            negative_skipped.append(operation.label)
    assert len(negative_skipped) < len(operations), "invalid data was sent to at least one operation"
