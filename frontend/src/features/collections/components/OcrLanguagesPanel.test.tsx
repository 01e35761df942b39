import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CollectionDetail } from "../../../api/generated/types.gen";
import { configureApiClient } from "../../../shared/api/client";
import { renderWithProviders } from "../../../test/render";
import { useCollection } from "../api/useCollection";
import { OcrLanguagesPanel } from "./OcrLanguagesPanel";

function detail(changes: Partial<CollectionDetail>): CollectionDetail {
  return {
    name: "scans",
    embedding_model: "e5",
    documents: 1,
    chunks: 3,
    updated_at: "2026-11-28T08:00:00Z",
    ocr_languages: ["deu", "eng"],
    ocr_languages_own: false,
    document_list: [],
    problems: [],
    vector_index_damage: null,
    ocr_read_otherwise: [],
    may_write: true,
    ...changes,
  };
}

/** The collection, the installed languages, PATCH, the re-read and its job (running, then done). */
const server = {
  calls: [] as string[],
  bodies: [] as unknown[],
  collection: detail({}),
  patchStatus: 200,
  polls: 0,
  async handle(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    server.calls.push(`${request.method} ${path}`);
    if (path === "/api/ocr/languages")
      return Response.json({ installed: ["deu", "eng"], default: ["deu", "eng"], unavailable: null });
    if (path === "/api/collections/scans" && request.method === "GET") return Response.json(server.collection);
    if (path === "/api/collections/scans" && request.method === "PATCH") {
      const body = (await request.json()) as { ocr_languages: string[] };
      server.bodies.push(body);
      if (server.patchStatus !== 200)
        return Response.json(
          { error: { type: "OcrLanguageError", message: "Tesseract has no data for the OCR language 'eng' here" } },
          { status: server.patchStatus },
        );
      const own = body.ocr_languages.length > 0;
      server.collection = detail({
        ocr_languages: own ? body.ocr_languages : ["deu", "eng"],
        ocr_languages_own: own,
        ocr_read_otherwise: own ? ["permit.pdf"] : [],
      });
      return Response.json(server.collection);
    }
    const job = (status: "running" | "done", done: number) => ({
      id: "j1",
      collection: "scans",
      status,
      done,
      total: 1,
      files: [{ file_name: "permit.pdf", status: done ? "ingested" : "pending", reason: null }],
      error: null,
    });
    if (path === "/api/collections/scans/ocr/reread" && request.method === "POST")
      return Response.json(job("running", 0), { status: 202 });
    if (path === "/api/jobs/j1") {
      server.polls += 1;
      if (server.polls === 1) return Response.json(job("running", 0));
      server.collection = { ...server.collection, ocr_read_otherwise: [] };
      return Response.json(job("done", 1));
    }
    return Response.json({ error: { type: "HTTPError", message: "Not Found" } }, { status: 404 });
  },
};

function Page() {
  const collection = useCollection("scans");
  return collection.data ? <OcrLanguagesPanel collection={collection.data} /> : null;
}

beforeEach(() => {
  configureApiClient("http://app.test/");
  server.calls = [];
  server.bodies = [];
  server.collection = detail({});
  server.patchStatus = 200;
  server.polls = 0;
  vi.stubGlobal("fetch", vi.fn(async (input: Request) => server.handle(input)));
});
afterEach(() => vi.unstubAllGlobals());

describe("the OCR languages of a collection", () => {
  it("changes them, counts the documents read otherwise and reads them again", async () => {
    renderWithProviders(<Page />);
    const panel = await screen.findByTestId("ocr-languages");
    expect(screen.getByTestId("ocr-languages-current")).toHaveTextContent(
      "Read in: German (deu), English (eng) (the server's default)",
    );
    const german = await within(panel).findByRole("checkbox", { name: "German (deu)" });
    expect(german).toBeChecked();
    await userEvent.click(german);
    await userEvent.click(screen.getByRole("button", { name: "Save the OCR languages" }));

    await waitFor(() =>
      expect(screen.getByTestId("ocr-languages-current")).toHaveTextContent(
        "Read in: English (eng) (this collection's own setting)",
      ),
    );
    expect(server.bodies).toEqual([{ ocr_languages: ["eng"] }]);
    const notice = screen.getByTestId("ocr-read-otherwise");
    expect(notice).toHaveTextContent("1 document was read by OCR in other languages than English (eng).");
    expect(notice).toHaveTextContent("permit.pdf");

    await userEvent.click(within(notice).getByRole("button", { name: "Read again in English (eng)" }));
    expect(await screen.findByRole("button", { name: /Reading again… 0 of 1 document/ })).toBeDisabled();
    await waitFor(() => expect(screen.queryByTestId("ocr-read-otherwise")).not.toBeInTheDocument(), {
      timeout: 5000,
    });
    expect(server.calls).toContain("POST /api/collections/scans/ocr/reread");

    await userEvent.click(screen.getByRole("button", { name: "Use the server's default (German (deu), English (eng))" }));
    await waitFor(() => expect(server.bodies).toEqual([{ ocr_languages: ["eng"] }, { ocr_languages: [] }]));
    expect(await screen.findByText(/\(the server's default\)/)).toBeInTheDocument();
  });

  it("shows the server's refusal and asks for at least one language", async () => {
    server.patchStatus = 422;
    renderWithProviders(<Page />);
    await userEvent.click(await screen.findByRole("checkbox", { name: "German (deu)" }));
    await userEvent.click(screen.getByRole("button", { name: "Save the OCR languages" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("no data for the OCR language 'eng'");

    await userEvent.click(screen.getByRole("checkbox", { name: "English (eng)" }));
    expect(screen.getByText("Choose at least one language, or use the server's default.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Save the OCR languages" })).toBeDisabled();
  });

  it("shows a reader the languages and the documents read otherwise, without the form or the button", async () => {
    server.collection = detail({ may_write: false, ocr_read_otherwise: ["permit.pdf"] });
    renderWithProviders(<Page />);
    expect(await screen.findByText("Only an editor or owner of this collection can change them.")).toBeInTheDocument();
    expect(screen.queryByRole("checkbox")).not.toBeInTheDocument();
    const notice = screen.getByTestId("ocr-read-otherwise");
    expect(notice).toHaveTextContent("1 document was read by OCR in other languages than German (deu), English (eng).");
    expect(within(notice).queryByRole("button")).toBeNull();
  });

  it("speaks German", async () => {
    renderWithProviders(<Page />, "de");
    expect(await screen.findByRole("checkbox", { name: "Deutsch (deu)" })).toBeChecked();
    expect(screen.getByTestId("ocr-languages-current")).toHaveTextContent(
      "Gelesen in: Deutsch (deu), Englisch (eng) (Voreinstellung des Servers)",
    );
    expect(screen.getByRole("button", { name: "OCR-Sprachen speichern" })).toBeInTheDocument();
  });
});
