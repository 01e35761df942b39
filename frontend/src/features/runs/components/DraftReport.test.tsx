import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { renderWithProviders } from "../../../test/render";
import { draftSource } from "../events/drafts";
import { parseRunEvent } from "../events/parse";
import { addEvents, EMPTY_LOG } from "../events/reducer";
import type { RunEvent, RunView } from "../events/types";
import { DraftReport } from "./DraftReport";

let seq = 0;
function ev(type: string, fields: Record<string, unknown>): RunEvent {
  seq += 1;
  const event = parseRunEvent(JSON.stringify({ type, run_id: "r1", seq, created_at: new Date(Date.UTC(2026, 10, 28, 0, 0, seq)).toISOString(), ...fields }));
  if (event === null) throw new Error(`not a run event: ${type}`);
  return event;
}

const WORKERS = {
  evidence_id: "t1-b1-e1",
  collection: "laws",
  document: "StrlSchG.pdf",
  page: 41,
  section: "§ 78",
  quote: "20 Millisievert",
  start: 120,
  end: 135,
  kind: "document",
  url: null,
};

/** Section 0 being written: a complete sentence citing a checked id and one the run never retrieved, then a
 * sentence the model is still writing; section 1 already written whole. */
function streamed(): RunView {
  const events = [
    ev("status", { status: "running", phase: "synthesize" }),
    ev("draft_section", { index: 1, heading: "Organ doses", task_id: "t2", attempt: 1, truncated: false, claims: [{ text: "The lens limit is 20 mSv.", evidence_ids: ["t1-b1-e1"] }] }),
    ev("draft_text", {
      index: 0,
      heading: "Workers",
      task_id: "t1",
      attempt: 1,
      claims: [{ text: "Workers may receive 20 mSv.", evidence_ids: ["t1-b1-e1", "t9-b9-e9"], complete: true }],
      citations: { "t1-b1-e1": WORKERS },
    }),
    ev("draft_text", {
      index: 0,
      heading: "Workers",
      task_id: "t1",
      attempt: 1,
      claims: [
        { text: "Workers may receive 20 mSv.", evidence_ids: ["t1-b1-e1", "t9-b9-e9"], complete: true },
        { text: "It is checked ev", evidence_ids: [], complete: false },
      ],
      citations: {},
    }),
  ];
  return addEvents(EMPTY_LOG, events).view;
}

describe("DraftReport", () => {
  it("shows the text as it is written, with a [n] link for a checked id only", async () => {
    const onCite = vi.fn();
    const view = streamed();
    renderWithProviders(<DraftReport view={view} active onCite={onCite} />);
    const sections = screen.getAllByTestId("draft-section");
    expect(sections.map((s) => within(s).getByRole("heading").textContent)).toEqual(["Workers being written", "Organ doses"]);

    const text = within(sections[0]!).getByTestId("draft-text");
    const [done, writing] = within(text).getAllByRole("listitem");
    expect(done).toHaveTextContent("Workers may receive 20 mSv. [1]");
    // the id the run did not retrieve is no link: it is said to be checked
    expect(within(done!).getByText("checking sources")).toHaveAttribute("title", expect.stringContaining("Cites 1 piece of evidence not checked yet"));
    expect(within(done!).getAllByRole("button")).toHaveLength(1);
    expect(writing).toHaveTextContent("It is checked ev");
    expect(within(writing!).queryByRole("button")).toBeNull();

    // the section written whole links the same checked id with the same number
    expect(within(sections[1]!).getByRole("button", { name: "Source 1 (draft): open the cited page" })).toBeInTheDocument();
    expect(within(sections[1]!).queryByTestId("draft-text")).toBeNull();

    await userEvent.setup().click(within(done!).getByRole("button", { name: "Source 1 (draft): open the cited page" }));
    expect(onCite).toHaveBeenCalledWith("t1-b1-e1");
    // what the viewer opens: the evidence's page and the quote's offsets
    expect(draftSource(view, "t1-b1-e1")).toMatchObject({ n: 1, document: "StrlSchG.pdf", page: 41, start: 120, end: 135, chain: [] });
    expect(draftSource(view, "t9-b9-e9")).toBeNull();
  });

  it("the section as written ends its stream, and the checked report replaces the draft", () => {
    const written = addEvents(
      { events: [], view: streamed() },
      [ev("draft_section", { index: 0, heading: "Workers", task_id: "t1", attempt: 1, truncated: false, claims: [{ text: "Workers may receive 20 mSv.", evidence_ids: ["t1-b1-e1"] }] })],
    ).view;
    expect(written.streams).toEqual([]);
    const { unmount } = renderWithProviders(<DraftReport view={written} active onCite={vi.fn()} />);
    expect(screen.queryByTestId("draft-text")).toBeNull();
    expect(screen.getAllByTestId("draft-cite")).toHaveLength(2);
    unmount();

    const reported = addEvents({ events: [], view: written }, [ev("report", { result: { run_id: "r1", report_markdown: "# R" } })]).view;
    renderWithProviders(<DraftReport view={reported} active={false} onCite={vi.fn()} />);
    expect(screen.queryByTestId("draft-report")).toBeNull();
  });

  it("says in German that a sentence is being written and links the checked source", () => {
    renderWithProviders(<DraftReport view={streamed()} active onCite={vi.fn()} />, "de");
    expect(screen.getAllByRole("button", { name: "Beleg 1 (Entwurf): zitierte Seite öffnen" })).toHaveLength(2);
    expect(screen.getByText("wird geschrieben")).toBeInTheDocument();
  });
});
