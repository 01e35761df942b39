import { useState, type FormEvent } from "react";
import type { SearchResultItem } from "../../../api/generated/types.gen";
import { useI18n } from "../../../shared/i18n/i18n";
import { ErrorAlert } from "../../../shared/ui/ErrorAlert";
import { useSearch } from "../api/useSearch";

/** Search one collection; each hit shows its snippet, document, page and section, and opens its page. */
export function SearchPanel({
  collection,
  query,
  onQuery,
  onOpen,
}: {
  collection: string;
  query: string;
  onQuery: (q: string) => void;
  onOpen: (hit: SearchResultItem) => void;
}) {
  const { t, formatNumber } = useI18n();
  const [text, setText] = useState(query);
  const results = useSearch(collection, query);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onQuery(text.trim());
  };
  return (
    <section aria-labelledby="search-title" className="panel">
      <h2 id="search-title">{t("search.title")}</h2>
      <form role="search" className="inline-form" onSubmit={submit}>
        <label htmlFor="search-q">{t("search.label")}</label>
        <input id="search-q" type="search" value={text} onChange={(e) => setText(e.target.value)} />
        <button type="submit" className="primary" disabled={!text.trim()}>
          {t("search.submit")}
        </button>
      </form>
      <ErrorAlert error={results.error} />
      {results.isFetching && <p className="muted">{t("common.loading")}</p>}
      {results.data && (
        <ol className="search-results" data-testid="search-results" aria-label={t("search.results")}>
          {results.data.results.length === 0 && <li>{t("search.none")}</li>}
          {results.data.results.map((hit) => (
            <li key={hit.chunk_id}>
              <button type="button" className="link" onClick={() => onOpen(hit)}>
                {hit.document}, {t("common.page", { n: hit.page })}
                {hit.page_end !== hit.page ? `–${hit.page_end}` : ""}
                {hit.section ? `, ${hit.section}` : ""}
              </button>
              <span className="muted"> · {t("search.score", { score: formatNumber(hit.score, 3) })}</span>
              {hit.heading && <div className="muted small">{hit.heading}</div>}
              <p className="snippet">{hit.text.length > 400 ? `${hit.text.slice(0, 400)}…` : hit.text}</p>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
