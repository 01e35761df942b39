import { fireEvent, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { renderWithProviders } from "../../../test/render";
import { createRunBody, NewRunPage } from "./NewRunPage";

const base = { question: "  Radiation protection duties ", collections: ["laws"], depth: "", k: "", model: "" };

describe("new run body", () => {
  it("sends the report fields in report mode: guidance, section titles one per line, refinement rounds", () => {
    const body = createRunBody(
      { ...base, mode: "report" },
      { guidance: " for operators, short ", sections: "Dose limits\n\n  Monitoring  \n", refinementRounds: "2" },
    );
    expect(body).toEqual({
      question: "Radiation protection duties",
      collections: ["laws"],
      mode: "report",
      settings: {},
      guidance: "for operators, short",
      sections: ["Dose limits", "Monitoring"],
      refinement_rounds: 2,
    });
  });

  it("leaves empty report fields to the server and never sends them in the other modes", () => {
    expect(createRunBody({ ...base, mode: "report" }, { guidance: " ", sections: "\n", refinementRounds: "" })).toEqual({
      question: "Radiation protection duties",
      collections: ["laws"],
      mode: "report",
      settings: {},
    });
    const quick = createRunBody({ ...base, mode: "quick" }, { guidance: "x", sections: "A", refinementRounds: "1" });
    expect(quick).not.toHaveProperty("guidance");
    expect(quick).not.toHaveProperty("sections");
    expect(quick).not.toHaveProperty("refinement_rounds");
  });
});

describe("new run page", () => {
  it("asks for a topic, guidance, required sections and refinement rounds (default 1) in report mode", async () => {
    const user = userEvent.setup();
    renderWithProviders(
      <MemoryRouter>
        <NewRunPage />
      </MemoryRouter>,
    );
    expect(screen.getByRole("textbox", { name: "Question" })).toBeInTheDocument();
    expect(screen.queryByTestId("report-fields")).toBeNull();
    await user.click(screen.getByRole("radio", { name: /^Report/ }));
    expect(screen.getByRole("textbox", { name: "Topic" })).toBeInTheDocument();
    expect(screen.getByRole("textbox", { name: "Guidance (optional)" })).toBeInTheDocument();
    expect(screen.getByRole("textbox", { name: "Required sections (optional)" })).toBeInTheDocument();
    expect(screen.getByRole("spinbutton", { name: "Refinement rounds" })).toHaveValue(1);
    expect(screen.getByRole("button", { name: "Start report" })).toBeInTheDocument();
  });

  it("keeps a 20,000-character question whole, says it is over the limit and sends nothing", async () => {
    const collections = [{ name: "laws", embedding_model: "m", documents: 1, chunks: 1, updated_at: "2026-01-01T00:00:00Z" }];
    const fetch = vi.fn(async (_request: Request) => Response.json(collections));
    vi.stubGlobal("fetch", fetch);
    renderWithProviders(
      <MemoryRouter>
        <NewRunPage />
      </MemoryRouter>,
    );
    const field = screen.getByRole("textbox", { name: "Question" });
    fireEvent.change(field, { target: { value: "x".repeat(20_000) } });
    expect(field).toHaveValue("x".repeat(20_000));
    expect(field).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByText("20,000 characters: the limit is 4,000. Shorten it by 16,000; nothing is cut or sent until then.")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Start research" }));
    expect(fetch.mock.calls.map(([request]) => request.method)).not.toContain("POST");
    fireEvent.change(field, { target: { value: "Wer prüft?" } });
    expect(screen.getByText("10 of 4,000 characters.")).toBeInTheDocument();
  });
});

afterEach(() => vi.unstubAllGlobals());
