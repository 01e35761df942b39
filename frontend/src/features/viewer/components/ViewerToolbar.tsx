import { useI18n } from "../../../shared/i18n/i18n";
import { originalFileUrl, pdfPageUrl } from "../lib/pdfUrl";
import { FIT, ZOOM_STEPS } from "../lib/zoom";

/** What the toolbar offers of the document itself: the whole PDF at the page shown, the original file (a
 * DOCX, HTML, Markdown or text document) as a download, or nothing (a PDF that is not served). */
export type OriginalLink = "pdf" | "download" | null;

/** Page turning, zoom (out, fit to width, in; PDF pages only) and the original: the whole PDF opened at the
 * page shown, or the original file of another format. */
export function ViewerToolbar({
  collection,
  document,
  page,
  pages,
  zoom,
  original,
  zoomable,
  onPage,
  onZoom,
  onZoomIn,
  onZoomOut,
}: {
  collection: string;
  document: string;
  page: number;
  pages: number | null;
  zoom: number;
  original: OriginalLink;
  zoomable: boolean;
  onPage: (page: number) => void;
  onZoom: (zoom: number) => void;
  onZoomIn: () => void;
  onZoomOut: () => void;
}) {
  const { t } = useI18n();
  return (
    <div className="viewer-toolbar" role="toolbar" aria-label={t("viewer.toolbar")}>
      <div className="viewer-tools">
        <button type="button" onClick={() => onPage(page - 1)} disabled={page <= 1} aria-label={t("viewer.previous")}>
          ‹
        </button>
        <span data-testid="viewer-page" aria-live="polite">
          {pages === null ? t("viewer.pageOnly", { page }) : t("viewer.pageOf", { page, pages })}
        </span>
        <button
          type="button"
          onClick={() => onPage(page + 1)}
          disabled={pages !== null && page >= pages}
          aria-label={t("viewer.next")}
        >
          ›
        </button>
      </div>
      {zoomable && (
        <div className="viewer-tools">
          <button
            type="button"
            onClick={onZoomOut}
            disabled={zoom <= ZOOM_STEPS[0]}
            aria-label={t("viewer.zoomOut")}
            aria-keyshortcuts="-"
          >
            −
          </button>
          <span data-testid="viewer-zoom">{Math.round(zoom * 100)} %</span>
          <button
            type="button"
            onClick={onZoomIn}
            disabled={zoom >= ZOOM_STEPS[ZOOM_STEPS.length - 1]!}
            aria-label={t("viewer.zoomIn")}
            aria-keyshortcuts="+"
          >
            +
          </button>
          <button type="button" onClick={() => onZoom(FIT)} disabled={zoom === FIT} aria-keyshortcuts="0">
            {t("viewer.fit")}
          </button>
        </div>
      )}
      {original === "pdf" && (
        <a href={pdfPageUrl(collection, document, page)} target="_blank" rel="noopener" data-testid="viewer-whole-pdf">
          {t("viewer.openPdf")}
        </a>
      )}
      {original === "download" && (
        <a href={originalFileUrl(collection, document)} download={document} data-testid="viewer-original">
          {t("viewer.downloadOriginal")}
        </a>
      )}
    </div>
  );
}
