import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { DocumentStatus, PageOut, Source } from "../../../api/generated/types.gen";
import { configureApiClient } from "../../../shared/api/client";
import { renderWithProviders } from "../../../test/render";
import CitationViewer from "./CitationViewer";

// A DOCX is shown as its stored text: pdf.js must never be asked for it.
const pdfPage = vi.fn();
vi.mock("./PdfPage", () => ({
  default: () => {
    pdfPage();
    return <div data-testid="pdf-page-stub" />;
  },
}));

const heading = "§ 7 Genehmigung von Anlagen";
const quote = "bedarf der Genehmigung";
const body = `${heading}\n\n(1) Wer eine ortsfeste Anlage errichtet, ${quote}.\n\n§ 8 Schutz\n\nText.`;
const offset = 5000;
const start = body.indexOf(quote);
const page: PageOut = {
  number: 3,
  offset,
  text: body,
  sections: [
    { label: "§ 6", heading: "Aufbewahrung", path: ["Zweiter Abschnitt - Überwachung"], start: 4200, end: offset - 2 },
    { label: "§ 7", heading: "Genehmigung von Anlagen", path: ["Zweiter Abschnitt - Überwachung"], start: offset, end: offset + body.indexOf("§ 8") - 2 },
    { label: "§ 8", heading: "Schutz", path: ["Zweiter Abschnitt - Überwachung"], start: offset + body.indexOf("§ 8"), end: offset + body.length },
  ],
};
const documents: DocumentStatus[] = [
  {
    id: 1,
    collection: "akte",
    file_name: "AtG.docx",
    format: "docx",
    viewer: "text",
    status: "ingested",
    reason: null,
    title: "Atomgesetz",
    abbreviation: "AtG",
    language: "de",
    pages: 9,
    chunks: 40,
    warnings: [],
  },
];
const source: Source = {
  n: 1,
  evidence_id: "t1-b1-e1",
  collection: "akte",
  document: "AtG.docx",
  page: 3,
  section: "§ 7",
  quote,
  start,
  end: start + quote.length,
  chain: [],
  support: null,
};

beforeEach(() => {
  pdfPage.mockClear();
  configureApiClient("http://app.test/");
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL) => {
      const { pathname, searchParams } = new URL(input instanceof Request ? input.url : String(input));
      const number = Number(searchParams.get("page"));
      const pages = number === 3 ? [page] : [{ number, offset: 9000, text: `Seite ${number}`, sections: [] }];
      return Response.json(pathname.endsWith("/documents") ? documents : pages);
    }),
  );
});
afterEach(() => vi.unstubAllGlobals());

describe("the viewer of a DOCX, HTML, Markdown or text document", () => {
  it("shows the stored text with the quote highlighted and the headings it lies under", async () => {
    renderWithProviders(<CitationViewer source={source} onClose={vi.fn()} />);
    const text = await screen.findByTestId("text-page");
    expect(text.textContent).toBe(body);
    const marks = text.querySelectorAll("mark");
    expect(marks).toHaveLength(1);
    expect(marks[0]).toHaveTextContent(quote);
    expect(screen.getByTestId("viewer-heading-path")).toHaveTextContent(
      "Headings: Zweiter Abschnitt - Überwachung › § 7 Genehmigung von Anlagen",
    );
    expect(screen.getByRole("region", { name: "Text of AtG.docx, page 3" })).toBe(text);
    expect(pdfPage).not.toHaveBeenCalled();
  });

  it("offers the original file as a download instead of a PDF, and no zoom", async () => {
    renderWithProviders(<CitationViewer source={source} onClose={vi.fn()} />);
    await screen.findByTestId("text-page");
    const toolbar = screen.getByRole("toolbar", { name: "Page and zoom" });
    const original = within(toolbar).getByRole("link", { name: "Download the original file" });
    expect(original).toHaveAttribute("href", "http://app.test/api/collections/akte/documents/AtG.docx/file");
    expect(original).toHaveAttribute("download", "AtG.docx");
    expect(within(toolbar).queryByRole("link", { name: "Open the whole PDF" })).toBeNull();
    expect(within(toolbar).queryByRole("button", { name: "Zoom in" })).toBeNull();
    expect(within(toolbar).getByTestId("viewer-page")).toHaveTextContent("Page 3 of 9");
  });

  it("turns to another page of the text, its first section's headings shown", async () => {
    const user = userEvent.setup();
    renderWithProviders(<CitationViewer source={source} onClose={vi.fn()} />);
    await screen.findByTestId("text-page");
    await user.click(screen.getByRole("button", { name: "Next page" }));
    await waitFor(() => expect(screen.getByTestId("text-page")).toHaveTextContent("Seite 4"));
    expect(screen.getByTestId("text-page").querySelector("mark")).toBeNull();
    expect(screen.queryByTestId("viewer-heading-path")).toBeNull();
  });
});
