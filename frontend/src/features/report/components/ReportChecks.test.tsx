import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ResearchResult } from "../../../api/generated/types.gen";
import { renderWithProviders } from "../../../test/render";
import ReportView from "./ReportView";

/** A research run's report as the backend renders it: a written section with an uncited sentence, a section
 * assembled from the findings (its note in italics under the heading), the checks, guards, evidence, tokens. */
const result: ResearchResult = {
  run_id: "r5",
  question: "Welche Grenzwerte gelten für Auszubildende?",
  language: "de",
  status: "done",
  answerable: true,
  report_markdown: [
    "# Welche Grenzwerte gelten für Auszubildende?",
    "## Grenzwerte",
    "Der Grenzwert beträgt 6 mSv im Kalenderjahr [1]. Er gilt auch für Schüler [ohne Beleg].",
    "## Organdosen",
    "*Aus den geprüften Befunden zusammengestellt, ohne Text des Modells: das Modell wiederholte seine Sätze.*",
    "Die Organ-Äquivalentdosis der Augenlinse beträgt 15 mSv [2].",
    "## Quellen",
    "[1] StrlSchG.pdf, S. 41",
    "[2] StrlSchG.pdf, S. 42",
  ].join("\n\n"),
  sources: [
    { n: 1, evidence_id: "t1-b1-e1", collection: "laws", document: "StrlSchG.pdf", page: 41, quote: "6 Millisievert", start: 0, end: 14 },
    { n: 2, evidence_id: "t2-b1-e1", collection: "laws", document: "StrlSchG.pdf", page: 42, quote: "15 Millisievert", start: 0, end: 15 },
  ],
  claims: [
    { section: "Grenzwerte", text: "Der Grenzwert beträgt 6 mSv im Kalenderjahr.", citations: [1] },
    { section: "Grenzwerte", text: "Er gilt auch für Schüler.", citations: [], uncited: true },
  ],
  checks: {
    sentences_written: 9,
    repeated_share: 0.444,
    placeholders: 1,
    cited_share: 0.667,
    tasks_with_evidence: 2,
    sections_written: 1,
    sections_assembled: 1,
    language_ok: true,
    flagged_share: 0.25,
    contradictions: 2,
    corrections: [
      {
        section: "Grenzwerte",
        sentence: "Der Grenzwert beträgt 20 mSv im Kalenderjahr.",
        missing: ["20 mSv"],
        action: "rewritten",
        replacement: "Der Grenzwert beträgt 6 mSv im Kalenderjahr.",
      },
      { section: "Grenzwerte", sentence: "Es gilt § 99 AtG.", missing: ["§ 99 AtG"], action: "removed", replacement: null },
    ],
    passed: false,
    problems: [
      { kind: "uncited", section: "Grenzwerte", sentence: "Er gilt auch für Schüler.", detail: "cites nothing" },
      { kind: "repeated", section: "Organdosen", sentence: "Die Dosis ist begrenzt.", detail: "4 of 5 sentences repeated others" },
      { kind: "repeated", detail: "4 of 9 sentences written repeated others" },
    ],
  },
  text_guards: {
    repeated_claims_dropped: 3,
    repeated_sentences_collapsed: 1,
    headings_replaced: 2,
    sections_dropped: 1,
    uncited_claims: 1,
    placeholder_claims_dropped: 1,
    title_replaced: true,
  },
  assembled_sections: [
    { heading: "Organdosen", task_id: "t2", reason: "das Modell wiederholte seine Sätze", note: "Aus den geprüften Befunden zusammengestellt" },
  ],
  evidence: [
    { id: "t2-b1-e1", task_id: "t2", collection: "laws", document: "StrlSchG.pdf", page: 42, section: "§ 78", quote: "15 Millisievert", start: 0, end: 15, fact: "Augenlinse 15 mSv", source: 2 },
    { id: "t1-b1-e1", task_id: "t1", collection: "laws", document: "StrlSchG.pdf", page: 41, quote: "6 Millisievert", start: 0, end: 14, fact: "Auszubildende 6 mSv", source: 1 },
    { id: "t1-b2-e1", task_id: "t1", collection: "laws", document: "StrlSchV.pdf", page: 7, quote: "Schülerinnen und Schüler", start: 3, end: 27, fact: "Schüler sind erfasst", source: null },
  ],
  llm_tokens: {
    total: { prompt: 12345, output: 678 },
    synthesize: { prompt: 4000, output: 400 },
    extract: { prompt: 8345, output: 278 },
  },
};

const scrolled: Element[] = [];
const scrollIntoView = Object.getOwnPropertyDescriptor(Element.prototype, "scrollIntoView");

beforeEach(() => {
  scrolled.length = 0;
  // jsdom has no layout: record what would be scrolled into view
  Element.prototype.scrollIntoView = vi.fn(function (this: Element) {
    scrolled.push(this);
  });
});

afterEach(() => {
  if (scrollIntoView) Object.defineProperty(Element.prototype, "scrollIntoView", scrollIntoView);
  else delete (Element.prototype as Partial<Element>).scrollIntoView;
});

function renderReport(language: "en" | "de" = "en", onCite = vi.fn()) {
  renderWithProviders(<ReportView runId="r5" result={result} onCite={onCite} active={null} />, language);
  return onCite;
}

describe("the report's uncited sentences and assembled sections", () => {
  it("marks an uncited sentence's mark, whatever the report's language", () => {
    renderReport();
    const mark = screen.getByText("[ohne Beleg]").closest("mark")!;
    expect(mark).toHaveClass("uncited");
    expect(mark).toHaveAttribute("title", "This sentence cites no evidence.");
    expect(mark.closest("p")).toHaveTextContent("Er gilt auch für Schüler [ohne Beleg]");
    expect(screen.queryByRole("link", { name: /ohne Beleg/ })).toBeNull();
  });

  it("badges an assembled section's heading and explains why, the note kept under the heading", async () => {
    const user = userEvent.setup();
    renderReport();
    const heading = screen.getByRole("heading", { level: 2, name: /^Organdosen/ });
    expect(within(heading).getByText("assembled from the findings")).toBeInTheDocument();
    expect(screen.getByRole("heading", { level: 2, name: "Grenzwerte" })).not.toHaveTextContent("assembled");
    expect(screen.getByText(/^Aus den geprüften Befunden zusammengestellt, ohne Text des Modells/)).toBeInTheDocument();
    const notice = screen.getByTestId("assembled-sections");
    expect(notice).toHaveTextContent("The model's text for these sections was unusable");
    expect(notice).toHaveTextContent("Organdosen: das Modell wiederholte seine Sätze");
    await user.click(within(notice).getByRole("button", { name: "Organdosen" }));
    expect(scrolled).toEqual([heading]);
    expect(heading).toHaveFocus();
  });
});

describe("the checks panel", () => {
  it("says the checks failed, with their figures", () => {
    renderReport();
    const panel = screen.getByTestId("checks");
    expect(within(panel).getByRole("heading", { level: 3 })).toHaveTextContent("Checks problems found");
    const figure = (name: string) => within(panel).getByText(name).nextElementSibling?.textContent;
    expect(figure("Sentences the model wrote")).toBe("9");
    expect(figure("Repeated among them")).toBe("44 %");
    expect(figure("Report sentences citing evidence")).toBe("67 %");
    expect(figure("Sections written / assembled / with evidence")).toBe("1 / 1 / 2");
    expect(figure("Citations weakly supported")).toBe("25 %");
  });

  it("lists the problems; one the report shows moves there, one it dropped says so", async () => {
    const user = userEvent.setup();
    renderReport();
    const problems = within(screen.getByTestId("check-problems")).getAllByRole("listitem");
    expect(problems.map((p) => p.dataset.kind)).toEqual(["uncited", "repeated", "repeated"]);
    expect(problems[0]).toHaveTextContent("uncited Grenzwerte: “Er gilt auch für Schüler.”: cites nothing");
    await user.click(within(problems[0]!).getByRole("button", { name: "Show in the report: Grenzwerte: “Er gilt auch für Schüler.”" }));
    const sentence = screen.getByText("[ohne Beleg]").closest("p")!;
    expect(scrolled).toEqual([sentence]);
    expect(sentence).toHaveFocus();
    expect(sentence).toHaveAttribute("data-located");

    // the repeated sentence was collapsed and its section assembled: its heading is where it points
    await user.click(within(problems[1]!).getByRole("button", { name: /^Show in the report: Organdosen/ }));
    const heading = screen.getByRole("heading", { level: 2, name: /^Organdosen/ });
    expect(scrolled.at(-1)).toBe(heading);
    expect(heading).toHaveAttribute("data-located");
    expect(sentence).not.toHaveAttribute("data-located");
    // a problem of the whole report points nowhere
    expect(problems[2]).toHaveTextContent("repeats the whole report: 4 of 9 sentences written repeated others");
    expect(within(problems[2]!).queryByRole("button")).toBeNull();
  });

  it("lists the sentences corrected against their evidence; a replacement moves to where it stands", async () => {
    const user = userEvent.setup();
    renderReport();
    const corrections = within(screen.getByTestId("check-corrections")).getAllByRole("listitem");
    expect(corrections.map((c) => c.dataset.action)).toEqual(["rewritten", "removed"]);
    expect(corrections[0]).toHaveTextContent(
      "Grenzwerte: “Der Grenzwert beträgt 20 mSv im Kalenderjahr.” (its evidence does not state 20 mSv) replaced by: Der Grenzwert beträgt 6 mSv im Kalenderjahr.",
    );
    await user.click(within(corrections[0]!).getByRole("button", { name: "replaced by: Der Grenzwert beträgt 6 mSv im Kalenderjahr. (show in the report)" }));
    expect(scrolled).toEqual([screen.getByText("[ohne Beleg]").closest("p")]);
    expect(corrections[1]).toHaveTextContent("Grenzwerte: “Es gilt § 99 AtG.” (its evidence does not state § 99 AtG) removed");
    expect(within(corrections[1]!).queryByRole("button")).toBeNull();
    expect(within(screen.getByTestId("checks")).getByText("Contradictions").nextElementSibling).toHaveTextContent("2");
  });

  it("a problem whose place the report does not show is not a button", () => {
    const gone: ResearchResult = {
      ...result,
      checks: { ...result.checks!, problems: [{ kind: "empty", section: "Dropped section", detail: "no usable sentence" }] },
    };
    renderWithProviders(<ReportView runId="r5" result={gone} onCite={vi.fn()} active={null} />);
    const problem = within(screen.getByTestId("check-problems")).getByRole("listitem");
    expect(problem).toHaveTextContent("Dropped section (not in the report (dropped or replaced)): no usable sentence");
    expect(within(problem).queryByRole("button")).toBeNull();
  });

  it("counts what the guards changed", () => {
    renderReport();
    const guards = screen.getByTestId("guards");
    const count = (name: string) => within(guards).getByText(name).nextElementSibling?.textContent;
    expect(count("Repeats collapsed")).toBe("4");
    expect(count("Placeholders dropped")).toBe("1");
    expect(count("Headings replaced")).toBe("2");
    expect(count("Empty sections dropped")).toBe("1");
    expect(count("Uncited sentences (marked)")).toBe("1");
    expect(guards).toHaveTextContent("Placeholder title replaced");
  });

  it("lists the evidence cited, by number, and the evidence left out", async () => {
    const user = userEvent.setup();
    const onCite = renderReport();
    const evidence = screen.getByTestId("evidence");
    expect(within(evidence).getByText("What the report rests on, and what it left out")).toBeInTheDocument();
    const cited = within(within(evidence).getByRole("list", { name: "Cited (2)" })).getAllByRole("listitem");
    expect(cited.map((li) => within(li).getByRole("button").textContent)).toEqual([
      "[1] StrlSchG.pdf, p. 41",
      "[2] StrlSchG.pdf, p. 42, § 78",
    ]);
    expect(cited[1]).toHaveTextContent("Augenlinse 15 mSv");
    await user.click(within(evidence).getByText("What the report rests on, and what it left out"));
    await user.click(within(cited[1]!).getByRole("button"));
    expect(onCite).toHaveBeenCalledWith(2);
    const left = within(within(evidence).getByRole("list", { name: "Not cited (1)" })).getAllByRole("listitem");
    expect(left).toHaveLength(1);
    expect(left[0]).toHaveTextContent("StrlSchV.pdf, p. 7");
    expect(left[0]).toHaveTextContent("Schüler sind erfasst");
    expect(left[0]).toHaveTextContent("Schülerinnen und Schüler");
    expect(within(left[0]!).queryByRole("button")).toBeNull();
  });

  it("shows the run's tokens, by kind of call in a details element", () => {
    renderReport();
    const tokens = screen.getByTestId("tokens");
    expect(tokens).toHaveTextContent("12,345 read (prompts), 678 written (answers)");
    const byKind = within(tokens).getByText("By kind of call").closest("details")!;
    const rows = within(byKind).getAllByRole("row").slice(1);
    expect(rows.map((r) => r.textContent)).toEqual(["extract8,345278", "synthesize4,000400"]);
  });

  it("in German", () => {
    renderReport("de");
    const panel = screen.getByTestId("checks");
    expect(within(panel).getByRole("heading", { level: 3 })).toHaveTextContent("Prüfungen Probleme gefunden");
    expect(screen.getByText("[ohne Beleg]").closest("mark")).toHaveAttribute("title", "Dieser Satz nennt keinen Beleg.");
    expect(screen.getByTestId("assembled-sections")).toHaveTextContent("Aus den geprüften Befunden zusammengestellt");
    expect(screen.getByTestId("tokens")).toHaveTextContent("12.345 gelesen (Prompts), 678 geschrieben (Antworten)");
    expect(screen.getByTestId("evidence")).toHaveTextContent("Worauf der Bericht beruht und was er ausließ");
  });
});
