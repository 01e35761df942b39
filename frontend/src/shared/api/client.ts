import { client } from "../../api/generated/client.gen";
import { apiRoot } from "./base";

/** Points the generated client at the API next to index.html (see base.ts). Called once at start-up. */
export function configureApiClient(baseUri?: string): void {
  client.setConfig({ baseUrl: apiRoot(baseUri) });
}

export { client };
