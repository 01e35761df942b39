import { lazy, Suspense, useEffect, useMemo, useRef, useState, type KeyboardEvent, type RefObject } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import { ErrorAlert } from "../../../shared/ui/ErrorAlert";
import { useDocumentPage } from "../api/useDocumentPages";
import { useDocumentPageCount } from "../api/useDocumentPageCount";
import { useDocumentViewer } from "../api/useDocumentViewer";
import { headingPath } from "../lib/headingPath";
import { quoteRange } from "../lib/highlight";
import { highlightsOn, type PageTarget } from "../lib/target";
import { useMediaQuery } from "../lib/useMediaQuery";
import { FIT, zoomIn, zoomOut } from "../lib/zoom";
import { OcrNote } from "./OcrNote";
import { PageText } from "./PageText";
import type { PdfStatus } from "./PdfPage";
import { ReferenceChain } from "./ReferenceChain";
import { ScannedPage } from "./ScannedPage";
import { TextPage } from "./TextPage";
import { ViewerToolbar } from "./ViewerToolbar";

const PdfPage = lazy(() => import("./PdfPage"));

/** Where the viewer shows a full-screen dialog instead of a panel beside the page. */
export const PHONE_QUERY = "(max-width: 700px)";

function isTyping(target: EventTarget): boolean {
  return target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement;
}

/** While open on a phone, the page under the full-screen viewer does not scroll. */
function useScrollLock(locked: boolean) {
  useEffect(() => {
    if (!locked) return;
    const before = document.body.style.overflow;
    document.body.style.overflow = "hidden";
    return () => {
      document.body.style.overflow = before;
    };
  }, [locked]);
}

/** Focus on the viewer's title when it opens (without scrolling the page: the viewer stands beside it, or
 * over it on a phone); back where it was (the [n], the hit) when it closes. */
function useFocusOnOpen(heading: RefObject<HTMLHeadingElement | null>) {
  useEffect(() => {
    const before = document.activeElement;
    heading.current?.focus({ preventScroll: true });
    return () => {
      if (before instanceof HTMLElement && before.isConnected) before.focus();
    };
  }, [heading]);
}

/**
 * A page of a document: the PDF page (pdf.js, with its text layer) with the target's passage highlighted by
 * its offsets (a page read by OCR: its image with the quote's OCR word boxes marked, and the OCR text shown
 * open beside it, with OCR's confidence), the page's stored text with the same highlight, page turning, zoom
 * (buttons, + and - keys),
 * the whole PDF at that page, and what is known of how the passage was found (support, the search, the
 * reference chain, each of its steps a link to its page). A document of another format (DOCX, HTML,
 * Markdown, text) is shown as its stored text with the passage highlighted and the headings it lies
 * under, and offers its original file as a download. Beside the page on a wide screen; a full-screen
 * dialog on a phone. Escape closes it. Mount it with a `key` per target: a new target starts at its page.
 */
export function PageViewer({ target, onClose }: { target: PageTarget; onClose: () => void }) {
  const { t, formatNumber } = useI18n();
  const [place, setPlace] = useState({ document: target.document, page: target.page });
  const [zoom, setZoom] = useState(FIT);
  const [pdfStatus, setPdfStatus] = useState<PdfStatus>("loading");
  const phone = useMediaQuery(PHONE_QUERY);
  const heading = useRef<HTMLHeadingElement>(null);
  useScrollLock(phone);
  useFocusOnOpen(heading);

  const pageOut = useDocumentPage(target.collection, place.document, place.page);
  const pages = useDocumentPageCount(target.collection, place.document);
  const viewer = useDocumentViewer(target.collection, place.document);
  const textDocument = viewer === "text";
  const shown = pageOut.data?.find((p) => p.number === place.page) ?? null;
  const onTargetPage = highlightsOn(target, place.document, place.page);
  const range = useMemo(
    () => (shown && onTargetPage && target.highlight ? quoteRange(shown.text, shown.offset, target.highlight) : null),
    [shown, onTargetPage, target.highlight],
  );
  const atTarget = place.document === target.document && place.page === target.page;
  const headings =
    textDocument && shown ? headingPath(shown.sections, range ? shown.offset + range.start : null) : [];
  const scanned = shown?.source === "ocr";
  const chain = target.chain ?? [];

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Escape") {
      event.stopPropagation();
      onClose();
      return;
    }
    if (isTyping(event.target) || event.ctrlKey || event.metaKey || event.altKey || textDocument) return;
    if (event.key === "+" || event.key === "=") setZoom(zoomIn);
    else if (event.key === "-") setZoom(zoomOut);
    else if (event.key === "0") setZoom(FIT);
    else return;
    event.preventDefault();
  };

  return (
    <aside
      className={phone ? "viewer viewer-dialog" : "viewer"}
      data-testid={target.citation != null ? "citation-viewer" : "document-viewer"}
      role={phone ? "dialog" : "complementary"}
      aria-modal={phone ? true : undefined}
      aria-labelledby="viewer-title"
      onKeyDown={onKeyDown}
    >
      <div className="viewer-head">
        <div className="page-head">
          <h2 id="viewer-title" tabIndex={-1} ref={heading}>
            {target.citation != null ? t("viewer.title", { n: target.citation }) : target.document}
          </h2>
          <button type="button" onClick={onClose}>
            {t("viewer.close")}
          </button>
        </div>
        <p className="source-line" data-testid="viewer-location">
          {place.document}, {t("common.page", { n: place.page })}
          {atTarget && target.section ? `, ${target.section}` : ""}
        </p>
        {headings.length > 0 && (
          <p className="muted heading-path" data-testid="viewer-heading-path">
            <span className="visually-hidden">{t("viewer.headingPath")}: </span>
            {headings.join(" › ")}
          </p>
        )}
        {target.support && (
          <p className={target.support.flagged ? "alert alert-warning" : "muted"}>
            {target.support.flagged ? t("viewer.flagged") : t("viewer.supported")}{" "}
            ({t("viewer.support", { score: formatNumber(target.support.score, 2) })})
          </p>
        )}
        {chain.length > 1 ? (
          <ReferenceChain chain={chain} current={place} onOpen={setPlace} />
        ) : (
          target.query && (
            <p className="muted" data-testid="viewer-query">
              {t("viewer.foundBySearch", { query: target.query })}
            </p>
          )
        )}
        {!atTarget && target.highlight && (
          <button type="button" className="link" onClick={() => setPlace({ document: target.document, page: target.page })}>
            {t("viewer.backToPassage", { page: target.page })}
          </button>
        )}
        <ViewerToolbar
          collection={target.collection}
          document={place.document}
          page={place.page}
          pages={pages}
          zoom={zoom}
          original={viewer === "text" || viewer === "image" ? "download" : pdfStatus !== "missing" ? "pdf" : null}
          zoomable={!textDocument}
          onPage={(page) => setPlace((p) => ({ ...p, page }))}
          onZoom={setZoom}
          onZoomIn={() => setZoom(zoomIn)}
          onZoomOut={() => setZoom(zoomOut)}
        />
        <ErrorAlert error={pageOut.error} />
        {shown && onTargetPage && atTarget && range === null && (
          <p className="alert alert-warning">{t("viewer.quoteNotFound")}</p>
        )}
      </div>
      {textDocument ? (
        shown && <TextPage document={place.document} page={place.page} text={shown.text} range={range} />
      ) : (
        <>
          {scanned && shown ? (
            <>
              <OcrNote confidence={shown.ocr_confidence ?? null} low={shown.ocr_low_confidence ?? false} />
              <ScannedPage
                key={`${place.document}/${place.page}`}
                collection={target.collection}
                document={place.document}
                page={place.page}
                range={range}
                zoom={zoom}
              />
            </>
          ) : (
            viewer === "pdf" && (
              <Suspense fallback={<p>{t("viewer.loadingPdf")}</p>}>
                <PdfPage
                  collection={target.collection}
                  document={place.document}
                  page={place.page}
                  pageText={shown?.text ?? null}
                  range={range}
                  zoom={zoom}
                  onStatus={setPdfStatus}
                />
              </Suspense>
            )
          )}
          {shown && (
            <PageText
              key={`${place.document}/${place.page}`}
              text={shown.text}
              range={range}
              label={scanned ? t("ocr.pageText") : undefined}
              open={scanned}
            />
          )}
        </>
      )}
    </aside>
  );
}
