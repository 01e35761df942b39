import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Layout } from "../../../app/Layout";
import { configureApiClient } from "../../../shared/api/client";
import { accessGate } from "../../../shared/auth/accessGate";
import type { Language } from "../../../shared/i18n/i18n";
import { renderWithProviders } from "../../../test/render";
import { CollectionsPage } from "../../collections/components/CollectionsPage";

const TOKEN = "the-right-token";

/** A server with a token: everything but the session endpoint answers 401 until the token was given. */
const server = {
  signedIn: false,
  calls: [] as string[],
  async handle(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname.replace(/^\/research/, "");
    server.calls.push(`${request.method} ${path}`);
    if (path === "/api/session" && request.method === "POST") {
      const { token } = (await request.json()) as { token: string };
      if (token !== TOKEN) return Response.json({ error: { type: "Unauthorized", message: "wrong token" } }, { status: 401 });
      server.signedIn = true;
      return new Response(null, { status: 204 });
    }
    if (path === "/api/session" && request.method === "DELETE") {
      server.signedIn = false;
      return new Response(null, { status: 204 });
    }
    if (!server.signedIn)
      return Response.json({ error: { type: "Unauthorized", message: "missing or wrong token" } }, { status: 401 });
    if (path === "/api/session") return Response.json({ token_required: true, via: "cookie" });
    if (path === "/api/collections")
      return Response.json([
        { name: "laws", embedding_model: "use", documents: 2, chunks: 40, updated_at: "2026-11-23T21:00:00Z" },
      ]);
    return Response.json({ error: { type: "HTTPError", message: "Not Found" } }, { status: 404 });
  },
};

/** EventSource stand-in: like the browser's, it fails (with no status) when the server refuses it. */
class FakeSource {
  static made: FakeSource[] = [];
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  closed = false;
  opened = false;
  constructor(readonly url: string) {
    FakeSource.made.push(this);
    const refused = !server.signedIn;
    setTimeout(() => {
      if (refused) this.onerror?.();
      else {
        this.opened = true;
        this.onopen?.();
      }
    }, 0);
  }
  addEventListener() {}
  close() {
    this.closed = true;
  }
}

beforeEach(() => {
  server.signedIn = false;
  server.calls = [];
  FakeSource.made = [];
  accessGate.reset();
  configureApiClient("http://app.test/research/");
  vi.stubGlobal("EventSource", FakeSource);
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => server.handle(new Request(input, init))),
  );
});

afterEach(() => vi.unstubAllGlobals());

function renderApp(language: Language = "en") {
  return renderWithProviders(
    <MemoryRouter initialEntries={["/collections"]}>
      <Routes>
        <Route path="/" element={<Layout />}>
          <Route path="collections" element={<CollectionsPage />} />
        </Route>
      </Routes>
    </MemoryRouter>,
    language,
  );
}

describe("access token", () => {
  it("asks for the token after a 401, refuses a wrong one, then fetches again and reconnects the stream", async () => {
    const user = userEvent.setup();
    renderApp();
    const dialog = await screen.findByRole("dialog", { name: "Access token" });
    const field = within(dialog).getByLabelText("Access token", { selector: "input" });
    await waitFor(() => expect(field).toHaveFocus());
    expect(document.getElementById("main")).toHaveAttribute("inert");
    expect(screen.queryByRole("table")).toBeNull();
    // the run list's stream failed with no status: the app asked /api/session, which said 401; it waits
    await waitFor(() => expect(server.calls).toContain("GET /api/session"));
    const streamsBefore = FakeSource.made.length;
    expect(streamsBefore).toBeGreaterThan(0);

    await user.type(field, "a-guess");
    await user.click(within(dialog).getByRole("button", { name: "Sign in" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("That is not the server's access token");
    expect(field).toHaveAttribute("aria-invalid", "true");
    expect(server.signedIn).toBe(false);

    await user.clear(field);
    await user.type(field, TOKEN);
    await user.click(within(dialog).getByRole("button", { name: "Sign in" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(document.getElementById("main")).not.toHaveAttribute("inert");
    // the refused query is fetched again, and the run list's stream is connected again
    expect(await screen.findByRole("link", { name: "laws" })).toBeInTheDocument();
    await waitFor(() => expect(FakeSource.made.length).toBeGreaterThan(streamsBefore));
    const stream = FakeSource.made.at(-1)!;
    expect(stream.url).toBe("http://app.test/research/api/runs/events");
    await waitFor(() => expect(stream.opened).toBe(true));
    // the token went to the server only: nothing in the browser's storage
    expect(JSON.stringify({ ...localStorage })).not.toContain(TOKEN);
  });

  it("signs out (when the session cookie is in use) and asks again", async () => {
    server.signedIn = true;
    const user = userEvent.setup();
    renderApp();
    expect(await screen.findByRole("link", { name: "laws" })).toBeInTheDocument();
    const stream = FakeSource.made.at(-1)!;
    await waitFor(() => expect(stream.opened).toBe(true));
    await user.click(await screen.findByRole("button", { name: "Sign out" }));
    expect(await screen.findByRole("dialog", { name: "Access token" })).toBeInTheDocument();
    expect(stream.closed).toBe(true); // no more run list changes after signing out
    expect(server.calls).toContain("DELETE /api/session");
    await waitFor(() => expect(screen.queryByRole("link", { name: "laws" })).toBeNull());
  });

  it("speaks German", async () => {
    renderApp("de");
    const dialog = await screen.findByRole("dialog", { name: "Zugangstoken" });
    expect(within(dialog).getByRole("button", { name: "Anmelden" })).toBeInTheDocument();
    expect(within(dialog).getByLabelText("Zugangstoken", { selector: "input" })).toBeInTheDocument();
  });

  it("shows no form while nothing was refused", async () => {
    server.signedIn = true;
    renderApp();
    expect(await screen.findByRole("link", { name: "laws" })).toBeInTheDocument();
    await act(async () => new Promise((r) => setTimeout(r, 50)));
    expect(screen.queryByRole("dialog")).toBeNull();
  });
});
