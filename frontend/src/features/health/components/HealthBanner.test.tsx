import { screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { HealthResponse } from "../../../api/generated/types.gen";
import { configureApiClient } from "../../../shared/api/client";
import { renderWithProviders } from "../../../test/render";
import { HealthBanner } from "./HealthBanner";

const healthy: HealthResponse = {
  status: "ready",
  ready: true,
  version: "0.1.0",
  collections: 1,
  embedding_model: "use",
  warm_up_error: null,
  llm: { provider: "ollama", base_url: "http://127.0.0.1:11434", reachable: true, error: null, models: [] },
  store: { ok: true, detail: "chroma" },
  database: { ok: true, detail: "catalog" },
  unavailable_collections: [],
};

function answer(body: unknown, status = 200) {
  vi.stubGlobal(
    "fetch",
    vi.fn(async () => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } })),
  );
}

beforeEach(() => configureApiClient("http://app.test/"));
afterEach(() => vi.unstubAllGlobals());

describe("health banner", () => {
  it("says nothing when all is well", async () => {
    answer(healthy);
    const { container } = renderWithProviders(<HealthBanner />);
    await new Promise((r) => setTimeout(r, 50));
    expect(container).toBeEmptyDOMElement();
  });

  it("says where Ollama was expected, how to start it and which model to pull", async () => {
    answer({
      ...healthy,
      status: "degraded",
      llm: {
        ...healthy.llm,
        reachable: false,
        error: "connection refused",
        models: [{ name: "qwen3:8b", role: "chat", present: null, fix: null }],
      },
    });
    renderWithProviders(<HealthBanner />);
    const banner = await screen.findByRole("alert");
    expect(banner).toHaveTextContent("Ollama is not reachable at http://127.0.0.1:11434");
    expect(banner).toHaveTextContent("ollama serve");
    expect(banner).toHaveTextContent("ollama pull qwen3:8b");
  });

  it("names a missing model with the command that fetches it, in German too", async () => {
    answer({
      ...healthy,
      status: "degraded",
      llm: { ...healthy.llm, models: [{ name: "qwen3:14b", role: "chat", present: false, fix: "ollama pull qwen3:14b" }] },
    });
    renderWithProviders(<HealthBanner />, "de");
    expect(await screen.findByRole("alert")).toHaveTextContent("Das Modell qwen3:14b fehlt: `ollama pull qwen3:14b` ausführen.");
  });

  it("names a collection that cannot be searched, with the repair", async () => {
    answer({
      ...healthy,
      status: "degraded",
      unavailable_collections: [
        { name: "laws", reason: "the vector index of collection 'laws' is damaged; rebuild it: rabbithole rebuild laws" },
      ],
    });
    renderWithProviders(<HealthBanner />);
    expect(await screen.findByRole("alert")).toHaveTextContent(
      "Collection laws cannot be searched: the vector index of collection 'laws' is damaged; rebuild it: rabbithole rebuild laws",
    );
  });

  it("says how to start the server when it does not answer", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => Promise.reject(new TypeError("Failed to fetch"))));
    renderWithProviders(<HealthBanner />);
    expect(await screen.findByRole("alert")).toHaveTextContent("make run");
  });
});
