/** TanStack Query keys, in one place so invalidation after an event or a mutation hits what it should. */
export const queryKeys = {
  health: ["health"] as const,
  session: ["session"] as const,
  collections: ["collections"] as const,
  collection: (name: string) => ["collections", name] as const,
  documents: (name: string) => ["collections", name, "documents"] as const,
  registry: (name: string) => ["collections", name, "registry"] as const,
  search: (collection: string, q: string, k: number) => ["search", collection, q, k] as const,
  job: (id: string) => ["jobs", id] as const,
  ocrLanguages: ["ocr", "languages"] as const,
  runs: ["runs"] as const,
  runList: (limit: number, status = "", question = "") => ["runs", "list", limit, status, question] as const,
  run: (id: string) => ["runs", "detail", id] as const,
  report: (id: string) => ["runs", "report", id] as const,
  pages: (collection: string, document: string, page: number) => ["pages", collection, document, page] as const,
  pageBoxes: (collection: string, document: string, page: number, start: number, end: number) =>
    ["pages", collection, document, page, "boxes", start, end] as const,
};
