import { lazy, Suspense, useEffect, useMemo, useRef } from "react";
import type { Source } from "../../../api/generated/types.gen";
import { useI18n } from "../../../shared/i18n/i18n";
import { ErrorAlert } from "../../../shared/ui/ErrorAlert";
import { useDocumentPage } from "../api/useDocumentPages";
import { quoteRange } from "../lib/highlight";
import { PageText } from "./PageText";

const PdfPage = lazy(() => import("./PdfPage"));

/**
 * The panel a citation opens: the cited PDF page (pdf.js, with its text layer) with the quote highlighted
 * by its offsets, the page's stored text with the same highlight, and the reference chain that led there.
 */
export default function CitationViewer({ source, onClose }: { source: Source; onClose: () => void }) {
  const { t, formatNumber } = useI18n();
  const page = useDocumentPage(source.collection, source.document, source.page);
  const pageOut = page.data?.find((p) => p.number === source.page) ?? page.data?.[0] ?? null;
  const range = useMemo(
    () => (pageOut ? quoteRange(pageOut.text, pageOut.offset, source) : null),
    [pageOut, source],
  );
  const chain = source.chain ?? [];
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    heading.current?.focus();
  }, [source.n]);

  return (
    <aside
      className="viewer"
      data-testid="citation-viewer"
      aria-labelledby="viewer-title"
      onKeyDown={(e) => {
        if (e.key === "Escape") onClose();
      }}
    >
      <div className="page-head">
        <h2 id="viewer-title" tabIndex={-1} ref={heading}>
          {t("viewer.title", { n: source.n })}
        </h2>
        <button type="button" onClick={onClose}>
          {t("viewer.close")}
        </button>
      </div>
      <p className="source-line" data-testid="viewer-location">
        {source.document}, {t("common.page", { n: source.page })}
        {source.section ? `, ${source.section}` : ""}
      </p>
      {source.support && (
        <p className={source.support.flagged ? "alert alert-warning" : "muted"}>
          {source.support.flagged ? t("viewer.flagged") : t("viewer.supported")}{" "}
          ({t("viewer.support", { score: formatNumber(source.support.score, 2) })})
        </p>
      )}
      {chain.length > 1 && (
        <section aria-labelledby="chain-title">
          <h3 id="chain-title">{t("viewer.chain")}</h3>
          <ol className="chain" data-testid="reference-chain">
            {chain.map((step, i) => (
              <li key={`${step.chunk_id}-${i}`}>
                {step.document}, {t("common.page", { n: step.page })}
                {step.section ? `, ${step.section}` : ""}
                {step.mention && i < chain.length - 1 && (
                  <span className="muted"> — {t("viewer.via", { mention: step.mention })}</span>
                )}
              </li>
            ))}
          </ol>
        </section>
      )}
      <ErrorAlert error={page.error} />
      {pageOut && range === null && <p className="alert alert-warning">{t("viewer.quoteNotFound")}</p>}
      <Suspense fallback={<p>{t("viewer.loadingPdf")}</p>}>
        <PdfPage
          key={`${source.collection}/${source.document}/${source.page}`}
          collection={source.collection}
          document={source.document}
          page={source.page}
          pageText={pageOut?.text ?? null}
          range={range}
        />
      </Suspense>
      {pageOut && <PageText text={pageOut.text} range={range} />}
    </aside>
  );
}
