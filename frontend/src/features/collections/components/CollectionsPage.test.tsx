import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { configureApiClient } from "../../../shared/api/client";
import { renderWithProviders } from "../../../test/render";
import { CollectionsPage } from "./CollectionsPage";

const created: unknown[] = [];

beforeEach(() => {
  configureApiClient("http://app.test/");
  created.length = 0;
  vi.stubGlobal(
    "fetch",
    vi.fn(async (request: Request) => {
      if (request.method === "POST") {
        const body: { name: string } = await request.json();
        created.push(body);
        const collection = { ...body, embedding_model: "m", documents: 0, chunks: 0, updated_at: "2026-01-01T00:00:00Z" };
        return Response.json(collection, { status: 201 });
      }
      return Response.json([]);
    }),
  );
});
afterEach(() => vi.unstubAllGlobals());

function page(language: "en" | "de" = "en") {
  return renderWithProviders(
    <MemoryRouter>
      <CollectionsPage />
    </MemoryRouter>,
    language,
  );
}

describe("the collection name", () => {
  it("makes a valid name of “Meine Akte”, says so as the user types, and creates it", async () => {
    page();
    const field = screen.getByLabelText("Collection name");
    await userEvent.type(field, "Meine Akte");
    expect(screen.getByText("Will be created as “meine-akte”.")).toBeInTheDocument();
    const create = screen.getByRole("button", { name: "Create collection" });
    expect(create).toBeEnabled();
    await userEvent.click(create);
    await waitFor(() => expect(created).toEqual([{ name: "meine-akte" }]));
  });

  it("keeps a valid name and says why nothing can be made of punctuation alone", async () => {
    page("de");
    const field = screen.getByLabelText("Name der Sammlung");
    await userEvent.type(field, "Akten_2024");
    expect(screen.queryByText(/Wird angelegt als/)).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Sammlung anlegen" })).toBeEnabled();
    await userEvent.clear(field);
    await userEvent.type(field, "!!!");
    expect(screen.getByText(/mindestens einen Buchstaben/)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Sammlung anlegen" })).toBeDisabled();
    expect(field).toHaveAttribute("aria-invalid", "true");
  });
});
