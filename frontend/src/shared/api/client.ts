import { client } from "../../api/generated/client.gen";
import { apiRoot, setApiRoot } from "./base";

/** Points the generated client at the API next to index.html (see base.ts). Called once at start-up. */
export function configureApiClient(baseUri?: string): void {
  const root = apiRoot(baseUri);
  setApiRoot(root);
  client.setConfig({ baseUrl: root });
}

export { client };
