import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { ResearchResult } from "../../../api/generated/types.gen";
import { renderWithProviders } from "../../../test/render";
import ReportView from "./ReportView";

const sections = [
  { id: "s1", title: "Introduction", research: false, markdown: "## Introduction\n\nThe limits protect workers [1].", refined: 0 },
  { id: "s2", title: "Dose limits", research: true, markdown: "## Dose limits\n\nThe limit is 20 mSv [1]. A guide says so [2].", rounds: 2 },
];

const report: ResearchResult = {
  run_id: "r9",
  question: "Radiation protection duties",
  language: "en",
  status: "done",
  answerable: true,
  report_markdown:
    "# Radiation protection duties\n\n## Contents\n\n1. [Introduction](#introduction)\n2. [Dose limits](#dose-limits)\n\n" +
    sections.map((s) => s.markdown).join("\n\n") +
    "\n\n## Sources\n\n[1] StrlSchG.pdf",
  sources: [
    { n: 1, evidence_id: "s2-p0-d0-b0-e1", collection: "sample", document: "StrlSchG.pdf", page: 41, section: "§ 78", quote: "20 Millisievert", start: 10, end: 25 },
    {
      n: 2,
      evidence_id: "s2-p0-d0-w1",
      collection: "web",
      document: "https://example.org/guide",
      page: 1,
      quote: "The guide repeats the limit.",
      start: 0,
      end: 28,
      kind: "web",
      url: "https://example.org/guide",
      title: "Radiation guide",
    },
  ],
  sections,
};

describe("report view of a report run", () => {
  it("shows a table of contents linking each section's anchor, above the sections", () => {
    renderWithProviders(<ReportView runId="r9" result={report} onCite={vi.fn()} active={null} />);
    const contents = screen.getByRole("navigation", { name: "Contents" });
    const links = within(contents).getAllByRole("link");
    expect(links.map((a) => [a.textContent, a.getAttribute("href")])).toEqual([
      ["Introduction", "#report-section-s1"],
      ["Dose limits", "#report-section-s2"],
    ]);
    const rendered = screen.getAllByTestId("report-section");
    expect(rendered.map((s) => s.id)).toEqual(["report-section-s1", "report-section-s2"]);
    expect(within(rendered[1]!).getByRole("heading", { name: "Dose limits" })).toBeInTheDocument();
    expect(contents.compareDocumentPosition(rendered[0]!) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(screen.getByRole("heading", { level: 1, name: "Radiation protection duties" })).toBeInTheDocument();
    // the report's own Markdown contents (and its sources block) are not shown a second time
    expect(screen.getAllByRole("link", { name: "Introduction" })).toHaveLength(1);
  });

  it("moves to a section from the contents without leaving the page (routes live in the hash)", async () => {
    const user = userEvent.setup();
    renderWithProviders(<ReportView runId="r9" result={report} onCite={vi.fn()} active={null} />);
    const before = window.location.hash;
    await user.click(within(screen.getByRole("navigation", { name: "Contents" })).getByRole("link", { name: "Dose limits" }));
    expect(screen.getAllByTestId("report-section")[1]).toHaveFocus();
    expect(window.location.hash).toBe(before);
  });

  it("opens a document's citation in the viewer and links a web source to its page, marked as such", async () => {
    const user = userEvent.setup();
    const onCite = vi.fn();
    renderWithProviders(<ReportView runId="r9" result={report} onCite={onCite} active={null} />);
    const documentCites = screen.getAllByRole("button", { name: "Citation 1: open the source" });
    expect(documentCites).toHaveLength(2);
    await user.click(documentCites[1]!);
    expect(onCite).toHaveBeenCalledWith(1);
    const webCite = screen.getByRole("link", { name: "Citation 2: web source, opens the page" });
    expect(webCite).toHaveAttribute("href", "https://example.org/guide");
    expect(webCite).toHaveAttribute("target", "_blank");
    const sourceList = screen.getByRole("region", { name: "Sources" });
    const webItem = within(sourceList).getByRole("link", { name: "[2] Radiation guide" }).closest("li")!;
    expect(webItem).toHaveTextContent("web source");
    expect(within(webItem).queryByRole("button")).toBeNull();
    expect(within(sourceList).getByRole("button", { name: /\[1\] StrlSchG\.pdf, p\. 41, § 78/ })).toBeInTheDocument();
  });

  it("shows a research run's report as one Markdown text without contents", () => {
    const research: ResearchResult = { ...report, sections: null, report_markdown: "# Answer\n\nThe limit is 20 mSv [1].", sources: [report.sources![0]!] };
    renderWithProviders(<ReportView runId="r1" result={research} onCite={vi.fn()} active={null} />);
    expect(screen.queryByRole("navigation", { name: "Contents" })).toBeNull();
    expect(screen.queryAllByTestId("report-section")).toHaveLength(0);
    expect(screen.getByRole("button", { name: "Citation 1: open the source" })).toBeInTheDocument();
  });
});
