/**
 * Where the API lives: next to index.html. The app is served at "/" or under a sub-path
 * ("https://host/research/"); every request goes relative to the folder index.html came from, so no URL in
 * the app starts with "/". Client-side routes live in the hash ("#/runs/abc"), so document.baseURI is always
 * index.html's own URL.
 */
export function apiRoot(baseUri: string = document.baseURI): string {
  const root = new URL(".", baseUri);
  root.search = "";
  root.hash = "";
  return root.href.replace(/\/$/, "");
}

let configuredRoot: string | null = null;

/** Sets the API root every request of the app uses (configureApiClient; tests point it elsewhere). */
export function setApiRoot(root: string): void {
  configuredRoot = root.replace(/\/$/, "");
}

/**
 * An absolute URL for an API path given as in the OpenAPI document ("/api/runs/x/events"): under the root
 * the generated client uses too (or the one next to `baseUri`, when given).
 */
export function apiUrl(path: string, baseUri?: string): string {
  const root = baseUri !== undefined ? apiRoot(baseUri) : (configuredRoot ?? apiRoot());
  return `${root}${path.startsWith("/") ? path : `/${path}`}`;
}
