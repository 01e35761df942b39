import { screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { Source } from "../../../api/generated/types.gen";
import { renderWithProviders } from "../../../test/render";
import { SourcesList } from "./SourcesList";

function source(n: number, ocr: { confidence: number; low: boolean } | null): Source {
  return {
    n,
    evidence_id: `e${n}`,
    collection: "law",
    document: `doc${n}.pdf`,
    page: 3,
    section: null,
    quote: `Zitat ${n}`,
    start: 0,
    end: 8,
    chain: [],
    support: null,
    ocr_confidence: ocr?.confidence ?? null,
    ocr_low_confidence: ocr?.low ?? false,
  };
}

describe("sources from pages read by OCR", () => {
  it("carry OCR's confidence, marked where it is low; a text-layer source carries nothing", () => {
    renderWithProviders(
      <SourcesList
        sources={[source(1, null), source(2, { confidence: 94.6, low: false }), source(3, { confidence: 61.2, low: true })]}
        onCite={vi.fn()}
        active={null}
      />,
    );
    const items = screen.getAllByRole("listitem");
    expect(within(items[0]!).queryByTestId("ocr-badge")).toBeNull();
    expect(within(items[1]!).getByTestId("ocr-badge")).toHaveTextContent("OCR 95 %");
    expect(within(items[1]!).getByTestId("ocr-badge")).not.toHaveClass("status-warning");
    expect(within(items[2]!).getByTestId("ocr-badge")).toHaveTextContent("OCR, low confidence (61 %)");
    expect(within(items[2]!).getByTestId("ocr-badge")).toHaveClass("status-warning");
  });
});
