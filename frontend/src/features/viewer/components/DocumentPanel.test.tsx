import { screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { configureApiClient } from "../../../shared/api/client";
import { renderWithProviders } from "../../../test/render";
import { searchHitTarget, targetFromParams, targetParams } from "../lib/target";
import DocumentPanel from "./DocumentPanel";

vi.mock("./PdfPage", () => ({
  default: (props: { page: number; range: { start: number; end: number } | null }) => (
    <div data-testid="pdf-page-stub">
      page {props.page} range {props.range ? `${props.range.start}-${props.range.end}` : "none"}
    </div>
  ),
}));

// two pages of a document: page 2 starts at offset 60 (page 1's 58 characters and "\n\f")
const page1 = "§ 21 Kosten\nFür Entscheidungen nach diesem Gesetz Gebühren";
const page2 = "und Auslagen erhoben. Satz 2 gilt.";
const documentText = `${page1}\n\f${page2}`;
const start = documentText.indexOf("Für");
const end = documentText.indexOf(" Satz 2");

const hit = {
  collection: "laws",
  document: "AtG.pdf",
  page: 1,
  page_end: 2,
  section: "§ 21",
  heading: "Kosten",
  text: documentText.slice(start, end),
  score: 0.9,
  similarity: 0.8,
  bm25: 3,
  chunk_id: "c1",
  start,
  end,
};

beforeEach(() => {
  configureApiClient("http://app.test/");
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const page = Number(url.searchParams.get("page"));
      const body = url.pathname.endsWith("/documents")
        ? []
        : [page === 1 ? { number: 1, offset: 0, text: page1 } : { number: 2, offset: page1.length + 2, text: page2 }];
      return new Response(JSON.stringify(body), { status: 200, headers: { "Content-Type": "application/json" } });
    }),
  );
});

afterEach(() => vi.unstubAllGlobals());

describe("a search hit opened", () => {
  it("from its URL (a reload): its passage highlighted by its offsets, and the search that found it", async () => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(targetParams(searchHitTarget(hit, "Gebühren")))) {
      if (value !== null) params.set(key, value);
    }
    expect(Object.fromEntries(params)).toEqual({ doc: "AtG.pdf", page: "1", to: "2", hl: `${start}-${end}` });
    const target = targetFromParams("laws", params, "Gebühren");
    if (!target) throw new Error("no target in the URL");
    renderWithProviders(<DocumentPanel target={target} onClose={vi.fn()} />);
    const text = await screen.findByTestId("page-text");
    expect(text.querySelector("mark")).toHaveTextContent(page1.slice(start));
    expect(await screen.findByTestId("pdf-page-stub")).toHaveTextContent(`page 1 range ${start}-${page1.length}`);
    expect(screen.getByTestId("viewer-query")).toHaveTextContent("Found by the search “Gebühren”");
    expect(screen.getByRole("heading", { name: "AtG.pdf" })).toBeInTheDocument();
  });

  it("runs onto the next page: its rest is highlighted there", async () => {
    renderWithProviders(<DocumentPanel target={{ ...searchHitTarget(hit, null), page: 2 }} onClose={vi.fn()} />);
    const text = await screen.findByTestId("page-text");
    expect(text.querySelector("mark")).toHaveTextContent("und Auslagen erhoben.");
    expect(screen.queryByTestId("viewer-query")).toBeNull();
  });
});
