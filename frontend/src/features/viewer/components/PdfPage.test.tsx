import { act, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { configureApiClient } from "../../../shared/api/client";
import { accessGate } from "../../../shared/auth/accessGate";
import { renderWithProviders } from "../../../test/render";
import PdfPage from "./PdfPage";

// pdf.js does not draw in jsdom: getDocument is replaced; the first load is refused as the server does
// without the token (pdf.js's ResponseException carries the status), later ones never finish.
const getDocument = vi.fn();
vi.mock("pdfjs-dist", () => ({
  GlobalWorkerOptions: {},
  TextLayer: vi.fn(),
  getDocument: (options: { url: string }) => getDocument(options),
}));
vi.mock("pdfjs-dist/build/pdf.worker.min.mjs?url", () => ({ default: "worker.js" }));

function loading(promise: Promise<unknown>) {
  return { promise, destroy: () => Promise.resolve() };
}

beforeEach(() => {
  accessGate.reset();
  configureApiClient("http://app.test/");
  getDocument.mockReset();
});

describe("PDF page", () => {
  it("refused for the token: asks for it and loads the PDF again once it is given", async () => {
    const refusal = Object.assign(new Error("Unexpected server response (401)"), { name: "ResponseException", status: 401 });
    getDocument
      .mockReturnValueOnce(loading(Promise.reject(refusal)))
      .mockReturnValue(loading(new Promise(() => {})));
    renderWithProviders(<PdfPage collection="laws" document="a b.pdf" page={2} pageText={null} range={null} />);
    await waitFor(() => expect(accessGate.isRequired()).toBe(true));
    expect(screen.getByTestId("pdf-page")).toHaveAttribute("data-status", "locked");
    expect(getDocument).toHaveBeenCalledTimes(1);
    expect(getDocument.mock.calls[0]![0].url).toBe("http://app.test/api/collections/laws/documents/a%20b.pdf/pdf");
    act(() => accessGate.grant());
    await waitFor(() => expect(getDocument).toHaveBeenCalledTimes(2));
  });

  it("a missing PDF is not a question of the token", async () => {
    const missing = Object.assign(new Error("Missing PDF"), { name: "ResponseException", status: 404 });
    getDocument.mockReturnValue(loading(Promise.reject(missing)));
    renderWithProviders(<PdfPage collection="laws" document="a.pdf" page={1} pageText={null} range={null} />);
    await waitFor(() => expect(screen.getByTestId("pdf-page")).toHaveAttribute("data-status", "missing"));
    expect(accessGate.isRequired()).toBe(false);
  });
});
