import { client } from "../../api/generated/client.gen";
import { accessGate } from "../auth/accessGate";
import { apiRoot, setApiRoot } from "./base";

let interceptorInstalled = false;

/**
 * Points the generated client at the API next to index.html (see base.ts), and lets a 401 from any call
 * ask for the access token (accessGate). Called once at start-up (tests call it again: one interceptor).
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
    interceptorInstalled = true;
  }
}

export { client };
