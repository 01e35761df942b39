import { lazy, Suspense, useMemo } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import { ErrorAlert } from "../../../shared/ui/ErrorAlert";
import { useDocumentPage } from "../api/useDocumentPages";
import { quoteRange } from "../lib/highlight";
import { PageText } from "./PageText";

const PdfPage = lazy(() => import("./PdfPage"));

/** A page of a document (a search hit opened), with the hit's text highlighted where it lies on the page. */
export default function DocumentPanel({
  collection,
  document,
  page,
  quote,
  start,
  end,
  onClose,
}: {
  collection: string;
  document: string;
  page: number;
  quote: string;
  start: number;
  end: number;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const pages = useDocumentPage(collection, document, page);
  const pageOut = pages.data?.find((p) => p.number === page) ?? pages.data?.[0] ?? null;
  const range = useMemo(
    () => (pageOut && quote ? quoteRange(pageOut.text, pageOut.offset, { quote, start, end }) : null),
    [pageOut, quote, start, end],
  );
  return (
    <aside className="viewer" data-testid="document-viewer" aria-labelledby="document-viewer-title">
      <div className="page-head">
        <h2 id="document-viewer-title">
          {document}, {t("common.page", { n: page })}
        </h2>
        <button type="button" onClick={onClose}>
          {t("viewer.close")}
        </button>
      </div>
      <ErrorAlert error={pages.error} />
      <Suspense fallback={<p>{t("viewer.loadingPdf")}</p>}>
        <PdfPage key={`${collection}/${document}/${page}`} collection={collection} document={document} page={page} pageText={pageOut?.text ?? null} range={range} />
      </Suspense>
      {pageOut && <PageText text={pageOut.text} range={range} />}
    </aside>
  );
}
