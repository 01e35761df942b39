import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Source } from "../../../api/generated/types.gen";
import { configureApiClient } from "../../../shared/api/client";
import { renderWithProviders } from "../../../test/render";
import CitationViewer from "./CitationViewer";

vi.mock("./PdfPage", () => ({ default: () => <div data-testid="pdf-page-stub" /> }));

const pageText = "Gescannte Seite\nDie Genehmigung ist zu versagen, wenn die Vorsorge fehlt.";
const quote = "Genehmigung ist zu versagen";
const start = pageText.indexOf(quote);

const source: Source = {
  n: 2,
  evidence_id: "t1-e1",
  collection: "law",
  document: "Bescheid-scan.pdf",
  page: 1,
  section: null,
  quote,
  start,
  end: start + quote.length,
  chain: [],
  support: null,
  ocr_confidence: 62,
  ocr_low_confidence: true,
};

const requests: string[] = [];
const words = [
  { start, end: start + 11, x0: 0.1, y0: 0.2, x1: 0.3, y1: 0.22 },
  { start: start + 12, end: start + 15, x0: 0.31, y0: 0.2, x1: 0.35, y1: 0.22 },
];

beforeEach(() => {
  requests.length = 0;
  configureApiClient("http://app.test/");
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL) => {
      const url = input instanceof Request ? input.url : String(input);
      requests.push(url);
      const { pathname } = new URL(url);
      const body = pathname.endsWith("/boxes")
        ? { number: 1, source: "ocr", ocr_confidence: 62, boxes: words }
        : pathname.endsWith("/documents")
          ? []
          : [{ number: 1, offset: 0, text: pageText, source: "ocr", ocr_confidence: 62, ocr_low_confidence: true }];
      return new Response(JSON.stringify(body), { status: 200, headers: { "Content-Type": "application/json" } });
    }),
  );
});

afterEach(() => vi.unstubAllGlobals());

describe("a page read by OCR", () => {
  it("shows the scan with the quote's word boxes, the OCR text open beside it, and the low confidence", async () => {
    renderWithProviders(<CitationViewer source={source} onClose={vi.fn()} />);
    const image = await screen.findByRole("img", { name: "Scanned page 1 of Bescheid-scan.pdf" });
    expect(image).toHaveAttribute(
      "src",
      "http://app.test/api/collections/law/documents/Bescheid-scan.pdf/pages/1/image?width=1600",
    );
    expect(screen.queryByTestId("pdf-page-stub")).toBeNull();
    expect(screen.getByTestId("ocr-note")).toHaveTextContent("OCR read this page with low confidence (62 %)");
    // the boxes of the quote's offsets, drawn once the image is there
    expect(screen.queryAllByTestId("ocr-mark")).toHaveLength(0);
    fireEvent.load(image);
    await waitFor(() => expect(screen.getAllByTestId("ocr-mark")).toHaveLength(2));
    expect(screen.getByTestId("scanned-page")).toHaveAttribute("data-marks", "2");
    expect(screen.getAllByTestId("ocr-mark")[0]).toHaveStyle({ left: "10.000%", top: "20.000%", width: "20.000%" });
    expect(requests.some((url) => url.endsWith(`/pages/1/boxes?start=${start}&end=${start + quote.length}`))).toBe(true);
    // the OCR text, open, with the quote marked
    const text = screen.getByTestId("page-text");
    expect(text.closest("details")).toHaveAttribute("open");
    expect(screen.getByText("Text read by OCR")).toBeInTheDocument();
    expect(within(text).getByText(quote, { selector: "mark" })).toBeInTheDocument();
  });

  it("says when the image cannot be loaded", async () => {
    renderWithProviders(<CitationViewer source={source} onClose={vi.fn()} />);
    fireEvent.error(await screen.findByRole("img", { name: "Scanned page 1 of Bescheid-scan.pdf" }));
    expect(await screen.findByText("The page image could not be loaded.")).toBeInTheDocument();
  });
});
