import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Source } from "../../../api/generated/types.gen";
import { configureApiClient } from "../../../shared/api/client";
import { renderWithProviders } from "../../../test/render";
import CitationViewer from "./CitationViewer";

// pdf.js does not run in jsdom: the PDF page is replaced by a stand-in that shows what it was asked to draw.
vi.mock("./PdfPage", () => ({
  default: (props: { document: string; page: number; zoom: number; range: { start: number; end: number } | null }) => (
    <div data-testid="pdf-page-stub">
      {props.document} page {props.page} range {props.range ? `${props.range.start}-${props.range.end}` : "none"} zoom{" "}
      {props.zoom}
    </div>
  ),
}));

const pageText = "Abschnitt 3\nDer Grenzwert der effektiven Dosis beträgt 20 Millisievert im Kalenderjahr.\nWeiteres.";
const quote = "Der Grenzwert der effektiven Dosis beträgt 20 Millisievert";
const start = pageText.indexOf(quote);

const source: Source = {
  n: 3,
  evidence_id: "t1-b1-e2",
  collection: "law",
  document: "StrlSchG.pdf",
  page: 41,
  section: "§ 78",
  quote,
  start,
  end: start + quote.length,
  chain: [
    { chunk_id: "a", document: "StrlSchV.pdf", page: 12, section: "§ 5", mention: "§ 78 StrlSchG", query: "Grenzwert Dosis" },
    { chunk_id: "b", document: "StrlSchG.pdf", page: 41, section: "§ 78", mention: null },
  ],
  support: { score: 0.31, overlap: 0.2, similarity: 0.4, flagged: true },
};

const requests: string[] = [];
const documents = ["StrlSchG.pdf", "StrlSchV.pdf"].map((file_name, i) => ({
  id: i + 1,
  collection: "law",
  file_name,
  status: "ingested",
  reason: null,
  title: "",
  abbreviation: "",
  language: "de",
  pages: 42,
  chunks: 100,
  warnings: [],
}));
const pageRequests = () => requests.filter((url) => url.includes("/pages"));

beforeEach(() => {
  requests.length = 0;
  configureApiClient("http://app.test/research/index.html");
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL) => {
      const url = input instanceof Request ? input.url : String(input);
      requests.push(url);
      const { pathname, searchParams } = new URL(url);
      const page = Number(searchParams.get("page"));
      const body = pathname.endsWith("/documents")
        ? documents
        : page === 41 && pathname.includes("StrlSchG.pdf")
          ? [{ number: 41, offset: 90210, text: pageText }]
          : [{ number: page, offset: 0, text: `page ${page} of ${decodeURIComponent(pathname.split("/")[6] ?? "")}` }];
      return new Response(JSON.stringify(body), { status: 200, headers: { "Content-Type": "application/json" } });
    }),
  );
});

afterEach(() => vi.unstubAllGlobals());

describe("citation viewer", () => {
  it("opens the cited page of the cited document, relative to the app's base URL", async () => {
    renderWithProviders(<CitationViewer source={source} onClose={vi.fn()} />);
    await screen.findByTestId("page-text");
    expect(pageRequests()).toEqual(["http://app.test/research/api/collections/law/documents/StrlSchG.pdf/pages?page=41"]);
    expect(screen.getByTestId("viewer-location")).toHaveTextContent("StrlSchG.pdf, p. 41, § 78");
    expect(await screen.findByTestId("pdf-page-stub")).toHaveTextContent(
      `StrlSchG.pdf page 41 range ${start}-${start + quote.length} zoom 1`,
    );
  });

  it("highlights exactly the quote's characters in the page text", async () => {
    renderWithProviders(<CitationViewer source={source} onClose={vi.fn()} />);
    const text = await screen.findByTestId("page-text");
    const marks = text.querySelectorAll("mark");
    expect(marks).toHaveLength(1);
    expect(marks[0]).toHaveTextContent(quote);
    expect(text.textContent).toBe(pageText);
  });

  it("shows the reference chain and marks a weakly supported citation", async () => {
    renderWithProviders(<CitationViewer source={source} onClose={vi.fn()} />);
    const chain = await screen.findByTestId("reference-chain");
    const steps = chain.querySelectorAll("li");
    expect(steps).toHaveLength(2);
    expect(steps[0]).toHaveTextContent("StrlSchV.pdf, p. 12, § 5 — found by the search “Grenzwert Dosis” — via “§ 78 StrlSchG”");
    expect(steps[1]).toHaveTextContent("StrlSchG.pdf, p. 41, § 78");
    expect(screen.getByText(/Weakly supported/)).toBeInTheDocument();
  });

  it("says so when the page does not hold the quote, and highlights nothing", async () => {
    renderWithProviders(<CitationViewer source={{ ...source, page: 7 }} onClose={vi.fn()} />);
    expect(await screen.findByText("The quote was not found on the stored page text.")).toBeInTheDocument();
    expect(screen.getByTestId("page-text").querySelector("mark")).toBeNull();
    await waitFor(() => expect(screen.getByTestId("pdf-page-stub")).toHaveTextContent("page 7 range none"));
  });

  it("closes", async () => {
    const user = userEvent.setup();
    const onClose = vi.fn();
    renderWithProviders(<CitationViewer source={source} onClose={onClose} />);
    await user.click(screen.getByRole("button", { name: "Close viewer" }));
    expect(onClose).toHaveBeenCalledOnce();
  });
  it("turns pages, and the highlight stays with the cited page", async () => {
    const user = userEvent.setup();
    renderWithProviders(<CitationViewer source={source} onClose={vi.fn()} />);
    const stub = await screen.findByTestId("pdf-page-stub");
    await waitFor(() => expect(screen.getByTestId("viewer-page")).toHaveTextContent("Page 41 of 42"));
    await user.click(screen.getByRole("button", { name: "Next page" }));
    await waitFor(() => expect(stub).toHaveTextContent("StrlSchG.pdf page 42 range none"));
    expect(screen.getByTestId("viewer-location")).toHaveTextContent("StrlSchG.pdf, p. 42");
    expect(screen.getByRole("button", { name: "Next page" })).toBeDisabled();
    expect(screen.queryByText("The quote was not found on the stored page text.")).toBeNull();
    await user.click(screen.getByRole("button", { name: "Previous page" }));
    await user.click(screen.getByRole("button", { name: "Previous page" }));
    await waitFor(() => expect(stub).toHaveTextContent("StrlSchG.pdf page 40 range none"));
    await user.click(screen.getByRole("button", { name: "Back to the passage (p. 41)" }));
    await waitFor(() => expect(stub).toHaveTextContent(`StrlSchG.pdf page 41 range ${start}-${start + quote.length}`));
    expect(pageRequests().map((url) => new URL(url).searchParams.get("page"))).toEqual(["41", "42", "40"]);
  });

  it("zooms by its buttons and the + and - keys, and fits the page to the width again", async () => {
    const user = userEvent.setup();
    renderWithProviders(<CitationViewer source={source} onClose={vi.fn()} />);
    const stub = await screen.findByTestId("pdf-page-stub");
    await user.click(screen.getByRole("button", { name: "Zoom in" }));
    expect(stub).toHaveTextContent("zoom 1.25");
    expect(screen.getByTestId("viewer-zoom")).toHaveTextContent("125 %");
    await user.keyboard("+");
    expect(stub).toHaveTextContent("zoom 1.5");
    await user.keyboard("--");
    expect(stub).toHaveTextContent(/zoom 1$/);
    await user.click(screen.getByRole("button", { name: "Zoom out" }));
    expect(stub).toHaveTextContent("zoom 0.75");
    await user.click(screen.getByRole("button", { name: "Fit to width" }));
    expect(stub).toHaveTextContent(/zoom 1$/);
    expect(screen.getByRole("button", { name: "Fit to width" })).toBeDisabled();
  });

  it("opens the page of a chain's step, and the whole PDF at the page shown", async () => {
    const user = userEvent.setup();
    renderWithProviders(<CitationViewer source={source} onClose={vi.fn()} />);
    const stub = await screen.findByTestId("pdf-page-stub");
    const chain = screen.getByTestId("reference-chain");
    expect(within(chain).getByRole("button", { name: /StrlSchG.pdf, p. 41/ })).toHaveAttribute("aria-current", "location");
    await user.click(within(chain).getByRole("button", { name: /StrlSchV.pdf, p. 12/ }));
    await waitFor(() => expect(stub).toHaveTextContent("StrlSchV.pdf page 12 range none"));
    expect(screen.getByTestId("viewer-location")).toHaveTextContent("StrlSchV.pdf, p. 12");
    expect(within(chain).getByRole("button", { name: /StrlSchV.pdf, p. 12/ })).toHaveAttribute("aria-current", "location");
    expect(await screen.findByTestId("page-text")).toHaveTextContent("page 12 of StrlSchV.pdf");
    expect(screen.getByRole("link", { name: "Open the whole PDF" })).toHaveAttribute(
      "href",
      "http://app.test/research/api/collections/law/documents/StrlSchV.pdf/pdf#page=12",
    );
  });

  it("closes by Escape", async () => {
    const user = userEvent.setup();
    const onClose = vi.fn();
    renderWithProviders(<CitationViewer source={source} onClose={onClose} />);
    await screen.findByTestId("pdf-page-stub");
    expect(screen.getByRole("heading", { name: "Source [3]" })).toHaveFocus();
    await user.keyboard("{Escape}");
    expect(onClose).toHaveBeenCalledOnce();
  });
});
