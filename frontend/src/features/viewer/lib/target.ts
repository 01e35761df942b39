/**
 * What the viewer opens: a page of a document in a collection, optionally with a passage to highlight (a
 * citation's quote, a search hit, a passage the corpus returned), and what is known about how it was found.
 */
import type { ChainStep, SearchResultItem, Source, Support } from "../../../api/generated/types.gen";
import type { QuoteTarget } from "./highlight";

/** A reference chain's step; the first one may name the search that found it. */
export type ChainLink = ChainStep;

export interface PageTarget {
  collection: string;
  document: string;
  page: number;
  /** The last page the highlighted passage runs onto (a search hit may cross a page break). */
  pageEnd?: number;
  section?: string | null;
  /** What to highlight: offsets (on the page or in the document text) and, where known, the quote. */
  highlight?: QuoteTarget | null;
  /** A citation's number: the viewer is titled "Source [n]". */
  citation?: number | null;
  support?: Support | null;
  chain?: ChainLink[];
  /** The search that found the passage, where known. */
  query?: string | null;
}

/** The page a report's source cites, with its quote, support and reference chain. */
export function sourceTarget(source: Source): PageTarget {
  const chain: ChainLink[] = source.chain ?? [];
  return {
    collection: source.collection,
    document: source.document,
    page: source.page,
    section: source.section ?? null,
    highlight: { quote: source.quote, start: source.start, end: source.end },
    citation: source.n,
    support: source.support ?? null,
    chain,
    query: chain[0]?.query ?? null,
  };
}

/** A search hit's page with the hit's passage (document offsets). */
export function searchHitTarget(hit: SearchResultItem, query: string | null): PageTarget {
  return {
    collection: hit.collection,
    document: hit.document,
    page: hit.page,
    pageEnd: hit.page_end,
    section: hit.section,
    highlight: { quote: hit.text, start: hit.start, end: hit.end },
    query,
  };
}

/** Whether the passage to highlight lies on `page` of `document`. */
export function highlightsOn(target: PageTarget, document: string, page: number): boolean {
  if (!target.highlight || document !== target.document) return false;
  return page >= target.page && page <= Math.max(target.page, target.pageEnd ?? target.page);
}

/** A page target in a page's URL (?doc=&page=&to=&hl=start-end): a search hit opened, reloadable. */
export function targetParams(target: PageTarget): Record<string, string | null> {
  const span = target.highlight;
  return {
    doc: target.document,
    page: String(target.page),
    to: target.pageEnd && target.pageEnd !== target.page ? String(target.pageEnd) : null,
    hl: span ? `${span.start}-${span.end}` : null,
  };
}

/** The page target of a URL written by `targetParams` (the highlight by its document offsets); null: none. */
export function targetFromParams(collection: string, params: URLSearchParams, query: string | null): PageTarget | null {
  const document = params.get("doc");
  if (!document) return null;
  const page = Math.max(1, Number(params.get("page")) || 1);
  const span = /^(\d+)-(\d+)$/.exec(params.get("hl") ?? "");
  const start = span ? Number(span[1]) : 0;
  const end = span ? Number(span[2]) : 0;
  return {
    collection,
    document,
    page,
    pageEnd: Math.max(page, Number(params.get("to")) || page),
    highlight: end > start ? { quote: "", start, end } : null,
    query: end > start ? query : null,
  };
}

/** A place the run's references lead to or from (a graph node): its page, nothing highlighted. */
export function placeTarget(place: {
  collection?: string | null;
  document: string;
  section?: string | null;
  page?: number | null;
}): PageTarget | null {
  if (!place.collection) return null;
  return { collection: place.collection, document: place.document, page: place.page ?? 1, section: place.section ?? null };
}

/** A passage the corpus returned (clarification, assessment) with its offsets; null where the run did not
 * record its collection (checkpointed before it did). */
export function passageTarget(passage: {
  collection?: string | null;
  document: string;
  page: number;
  page_end?: number | null;
  section?: string | null;
  start?: number | null;
  end?: number | null;
}): PageTarget | null {
  if (!passage.collection) return null;
  const { start, end } = passage;
  return {
    collection: passage.collection,
    document: passage.document,
    page: passage.page,
    pageEnd: passage.page_end ?? passage.page,
    section: passage.section ?? null,
    highlight: start != null && end != null && end > start ? { quote: "", start, end } : null,
  };
}
