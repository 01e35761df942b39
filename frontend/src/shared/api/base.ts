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

/** An absolute URL for an API path given as in the OpenAPI document ("/api/runs/x/events"). */
export function apiUrl(path: string, baseUri?: string): string {
  return `${apiRoot(baseUri)}${path.startsWith("/") ? path : `/${path}`}`;
}
