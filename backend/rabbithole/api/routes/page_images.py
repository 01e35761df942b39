"""Pages read by OCR, for the viewer: the page's image (the scanned PDF page or the image file's page,
drawn as PNG) and the boxes of the OCR words that show a stretch of the page's text (a quote's offsets)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response
from fastapi import Path as PathParam
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from rabbithole.api.deps import ServicesDep
from rabbithole.api.errors import responses
from rabbithole.api.routes.uploads import source_file
from rabbithole.catalog.word_boxes import boxes_for
from rabbithole.core.errors import DocumentNotFoundError
from rabbithole.ingestion.ocr.render import MAX_WIDTH, MIN_WIDTH, render_page_png
from rabbithole.services import Services

router = APIRouter(tags=["documents"])

PageNumber = Annotated[int, PathParam(ge=1, le=1_000_000, description="The 1-based page number.")]
IMAGE_RESPONSES: dict[int | str, dict[str, Any]] = {
    **responses(404),
    200: {"content": {"image/png": {}}, "description": "The page as a PNG image."},
}


class WordBoxOut(BaseModel):
    """A word's box on the page, as fractions of the page's width and height from its top left corner."""

    start: int  # the word's characters [start, end) in the page's text
    end: int
    x0: float
    y0: float
    x1: float
    y1: float


class PageBoxes(BaseModel):
    number: int
    source: str  # "text" (the PDF's text layer: no boxes) or "ocr"
    ocr_confidence: float | None
    boxes: list[WordBoxOut]


def _boxes(services: Services, name: str, file_name: str, number: int, start: int, end: int) -> PageBoxes:
    services.catalog.require_collection(name)
    page = next((p for p in services.catalog.pages(name, file_name) if p.number == number), None)
    if page is None:
        raise DocumentNotFoundError(f"no page {number} of '{file_name}' in collection '{name}'")
    found = boxes_for(page.words, start, end)
    return PageBoxes(
        number=number,
        source=page.source,
        ocr_confidence=page.ocr_confidence,
        boxes=[WordBoxOut(start=w.start, end=w.end, x0=w.x0, y0=w.y0, x1=w.x1, y1=w.y1) for w in found],
    )


@router.get("/collections/{name}/documents/{file_name}/pages/{number}/boxes", responses=responses(404))
async def page_boxes(
    name: str,
    file_name: str,
    number: PageNumber,
    services: ServicesDep,
    start: Annotated[int, Query(ge=0, description="First character, in the page's text.")],
    end: Annotated[int, Query(ge=0, description="End (exclusive), in the page's text.")],
) -> PageBoxes:
    """The OCR word boxes that show the page text's characters [start, end) (a quote's offsets on the
    page); none for a page with a text layer."""
    return await run_in_threadpool(_boxes, services, name, file_name, number, start, end)


@router.get(
    "/collections/{name}/documents/{file_name}/pages/{number}/image",
    response_class=Response,
    responses=IMAGE_RESPONSES,
)
async def page_image(
    name: str,
    file_name: str,
    number: PageNumber,
    services: ServicesDep,
    width: Annotated[int, Query(ge=MIN_WIDTH, le=MAX_WIDTH, description="Width in pixels.")] = 1200,
) -> Response:
    """The page drawn as a PNG image (a scanned page or an image file's page, for the viewer)."""

    def render() -> bytes:
        return render_page_png(source_file(services, name, file_name), number, width)

    png = await run_in_threadpool(render)
    return Response(png, media_type="image/png", headers={"Cache-Control": "private, max-age=300"})
