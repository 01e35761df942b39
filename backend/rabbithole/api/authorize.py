"""The app-wide dependency that applies the request's Access (api/access.py) to every route's path and
query parameters before the route runs: a collection named in the path or in `?collection=`, a document
(its collection), an ingestion job (its collection), a run. A route cannot forget the check: it is on every
route of the app (``FastAPI(dependencies=...)``). What is not visible answers 404 as if it did not exist;
what is visible but not allowed (a reader uploading), 403. Lists (collections, runs, the run-list stream)
are filtered by their routes through the same Access."""

from __future__ import annotations

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from rabbithole.api.access import Access, Need, get_access
from rabbithole.api.agent_protocol.registry import get_registry
from rabbithole.api.agent_protocol.threads import require_visible_thread
from rabbithole.api.deps import JobsDep, RunServiceDep, ServicesDep
from rabbithole.api.origin_guard import SAFE_METHODS
from rabbithole.api.routes.documents import MAX_DOCUMENT_ID

#: Route templates (method, path within /api) that need a collection's owner rather than an editor.
OWNER_ROUTES = {("DELETE", "/collections/{name}"), ("POST", "/collections/{name}/rebuild")}


def need_of(method: str, template: str) -> Need:
    """What a request of ``method`` on the route ``template`` needs of the collection it names."""
    if method in SAFE_METHODS:
        return "read"
    return "own" if (method, template) in OWNER_ROUTES else "write"


def _template(request: Request) -> str:
    """The matched route's path template, without the /api prefix its router was included under (the
    scope names the route of the included router)."""
    route = request.scope.get("route")
    path = getattr(route, "path", None)
    if not isinstance(path, str):
        raise RuntimeError(f"no route template for {request.method} {request.url.path}")
    return path.removeprefix("/api")


#: Agent Protocol requests that read although they are POSTs (a query in a body).
AGENT_READS = {("POST", "/threads/{thread_id}/history")}
#: The path parameters the checks below know; a route with another answers 500 to an account that is not
#: unrestricted (deny by default) until it is added here and checked.
CHECKED_PARAMS = {
    "name",  # a collection
    "file_name",  # a document of the collection in "name"
    "chunk_id",  # a passage of the collection in "name"
    "number",  # a page of the document in "file_name" (its collection in "name")
    "document_id",  # a document (its collection is looked up)
    "job_id",  # an ingestion job (its collection)
    "run_id",  # a run; on the Agent Protocol's routes a run of the thread in "thread_id"
    "thread_id",  # an Agent Protocol thread (its run)
    "assistant_id",  # an Agent Protocol assistant (a graph: no data)
}
#: Routes every client may use, signed in or not: the sign-in itself and the question whether one is
#: (api/accounts_auth.py lets them through; they show nothing but the request's own session).
PUBLIC_ROUTES = {"/session"}


async def authorize(request: Request, services: ServicesDep, runs: RunServiceDep, jobs: JobsDep) -> None:
    if _template(request) in PUBLIC_ROUTES:
        return
    access = await get_access(request, services)
    if access.unrestricted:
        return
    params = request.path_params
    template = _template(request)
    unknown = set(params) - CHECKED_PARAMS
    if unknown:  # a route added later whose parameters the permissions do not know: refused, not served
        raise RuntimeError(f"no permission check for the parameters {sorted(unknown)} of {template}")
    need = need_of(request.method, template)
    if "name" in params:
        access.require_collection(str(params["name"]), need)
    if "document_id" in params:
        document_id = _as_int(params["document_id"])
        if document_id is not None:  # not an id: the route answers 422
            collection, _ = await run_in_threadpool(services.catalog.locate_document, document_id)
            access.require_collection(collection, need)
    if "job_id" in params:
        job = await run_in_threadpool(jobs.get, str(params["job_id"]))
        access.require_collection(job.collection, "read")
    if "thread_id" in params:  # the Agent Protocol: a thread is a run (its run_id is the protocol's own)
        control = request.method not in SAFE_METHODS and (request.method, template) not in AGENT_READS
        registry = get_registry(request)
        await require_visible_thread(runs, registry, access, str(params["thread_id"]), control=control)
    elif "run_id" in params:
        record = await runs.runs.get(str(params["run_id"]), with_result=False)
        access.require_run(record, control=request.method not in SAFE_METHODS)
    for collection in request.query_params.getlist("collection"):
        access.require_collection(collection, "read")


def _as_int(value: object) -> int | None:
    """A document id as the route accepts it (documents.DocumentId), or None."""
    try:
        number = int(str(value))
    except ValueError:
        return None
    return number if 1 <= number <= MAX_DOCUMENT_ID else None


__all__ = ["Access", "authorize", "need_of"]
