import { client } from "../../api/generated/client.gen";
import { accessGate } from "../auth/accessGate";
import { CSRF_HEADER, changesSomething, csrfToken } from "../auth/csrf";
import { apiRoot, setApiRoot } from "./base";

let interceptorInstalled = false;

/**
 * Points the generated client at the API next to index.html (see base.ts), lets a 401 from any call
 * ask for the access token or the sign-in (accessGate), and sends the session's CSRF token (csrf.ts). Called once at start-up (tests call it again: one interceptor).
 */
export function configureApiClient(baseUri?: string): void {
  const root = apiRoot(baseUri);
  setApiRoot(root);
  client.setConfig({ baseUrl: root });
  if (!interceptorInstalled) {
    client.interceptors.response.use((response) => {
      if (response.status === 401) accessGate.deny();
      return response;
    });
    // accounts mode: a request that changes something carries the session's CSRF token
    client.interceptors.request.use(async (request) => {
      const signingIn = request.method === "POST" && new URL(request.url).pathname.endsWith("/api/session");
      if (!changesSomething(request.method) || signingIn) return request;
      const csrf = await csrfToken();
      if (csrf) request.headers.set(CSRF_HEADER, csrf);
      return request;
    });
    interceptorInstalled = true;
  }
}

export { client };
