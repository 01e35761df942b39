import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Layout } from "../../../app/Layout";
import { configureApiClient } from "../../../shared/api/client";
import { accessGate } from "../../../shared/auth/accessGate";
import { forgetCsrfToken } from "../../../shared/auth/csrf";
import type { Language } from "../../../shared/i18n/i18n";
import { renderWithProviders } from "../../../test/render";
import { CollectionsPage } from "../../collections/components/CollectionsPage";

const PASSWORD = "correct horse battery";
const CSRF = "the-sessions-csrf-token";

/** A server with accounts (server.auth = accounts): alice signs in; three failures lock the account. */
const server = {
  signedIn: false,
  failures: 0,
  calls: [] as string[],
  csrfSent: [] as (string | null)[],
  async handle(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    server.calls.push(`${request.method} ${path}`);
    if (path === "/api/session" && request.method === "POST") {
      const { name, password } = (await request.json()) as { name: string; password: string };
      if (server.failures >= 3)
        return Response.json({ error: { type: "TooManySignIns", message: "too many" } }, { status: 429 });
      if (name !== "alice" || password !== PASSWORD) {
        server.failures += 1;
        return Response.json({ error: { type: "SignInRefusedError", message: "wrong name or password" } }, { status: 401 });
      }
      server.signedIn = true;
      return new Response(null, { status: 204 });
    }
    if (path === "/api/session" && request.method === "GET") {
      const signedIn = server.signedIn;
      return Response.json({
        token_required: true,
        via: signedIn ? "cookie" : "none",
        auth: "accounts",
        user: signedIn ? "alice" : null,
        is_admin: false,
        csrf_token: signedIn ? CSRF : null,
      });
    }
    if (!server.signedIn)
      return Response.json({ error: { type: "Unauthorized", message: "sign in" } }, { status: 401 });
    if (path === "/api/session" && request.method === "DELETE") {
      server.csrfSent.push(request.headers.get("X-CSRF-Token"));
      server.signedIn = false;
      return new Response(null, { status: 204 });
    }
    if (path === "/api/collections")
      return Response.json([
        { name: "laws", embedding_model: "use", documents: 2, chunks: 40, updated_at: "2026-11-23T21:00:00Z" },
      ]);
    return Response.json({ error: { type: "HTTPError", message: "Not Found" } }, { status: 404 });
  },
};

class QuietSource {
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  constructor(readonly url: string) {
    setTimeout(() => (server.signedIn ? this.onopen?.() : this.onerror?.()), 0);
  }
  addEventListener() {}
  close() {}
}

beforeEach(() => {
  Object.assign(server, { signedIn: false, failures: 0, calls: [], csrfSent: [] });
  accessGate.reset();
  forgetCsrfToken();
  configureApiClient("http://app.test/");
  vi.stubGlobal("EventSource", QuietSource);
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

describe("sign-in with an account", () => {
  it("asks for name and password, says the same for every refusal, then shows the account's data", async () => {
    const user = userEvent.setup();
    renderApp();
    const dialog = await screen.findByRole("dialog", { name: "Sign in" });
    const name = within(dialog).getByLabelText("Name");
    const password = within(dialog).getByLabelText("Password");
    await waitFor(() => expect(name).toHaveFocus());
    expect(document.getElementById("main")).toHaveAttribute("inert");

    await user.type(name, "alice");
    await user.type(password, "a guess");
    await user.click(within(dialog).getByRole("button", { name: "Sign in" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("Wrong name or password.");
    expect(password).toHaveAttribute("aria-invalid", "true");

    await user.clear(password);
    await user.type(password, PASSWORD);
    await user.click(within(dialog).getByRole("button", { name: "Sign in" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(await screen.findByRole("link", { name: "laws" })).toBeInTheDocument();
    expect(await screen.findByText("Signed in as alice")).toBeInTheDocument();
    // nothing of the password in the browser's storage
    expect(JSON.stringify({ ...localStorage, ...sessionStorage })).not.toContain(PASSWORD);
  });

  it("says so when the account is locked for a while", async () => {
    server.failures = 3;
    const user = userEvent.setup();
    renderApp();
    const dialog = await screen.findByRole("dialog", { name: "Sign in" });
    await user.type(within(dialog).getByLabelText("Name"), "alice");
    await user.type(within(dialog).getByLabelText("Password"), PASSWORD);
    await user.click(within(dialog).getByRole("button", { name: "Sign in" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("Too many failed attempts");
    expect(server.signedIn).toBe(false);
  });

  it("signs out with the session's CSRF token and asks again", async () => {
    server.signedIn = true;
    const user = userEvent.setup();
    renderApp();
    expect(await screen.findByRole("link", { name: "laws" })).toBeInTheDocument();
    await user.click(await screen.findByRole("button", { name: "Sign out" }));
    expect(await screen.findByRole("dialog", { name: "Sign in" })).toBeInTheDocument();
    expect(server.csrfSent).toEqual([CSRF]);
  });

  it("speaks German", async () => {
    renderApp("de");
    const dialog = await screen.findByRole("dialog", { name: "Anmelden" });
    expect(within(dialog).getByLabelText("Name")).toBeInTheDocument();
    expect(within(dialog).getByLabelText("Passwort")).toBeInTheDocument();
    expect(within(dialog).getByRole("button", { name: "Anmelden" })).toBeInTheDocument();
  });
});
