import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
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
});
