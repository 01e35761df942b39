import {
  getDocument,
  GlobalWorkerOptions,
  TextLayer,
  type PDFDocumentProxy,
  type RenderTask,
} from "pdfjs-dist";
import workerUrl from "pdfjs-dist/build/pdf.worker.min.mjs?url";
import { useCallback, useEffect, useRef, useState } from "react";
import { accessGate } from "../../../shared/auth/accessGate";
import { useAccessGrants } from "../../../shared/auth/useAccess";
import { useI18n } from "../../../shared/i18n/i18n";
import { itemRanges, markItems, type TextRange } from "../lib/highlight";
import { pdfUrl } from "../lib/pdfUrl";
import { scrollWithin } from "../lib/scrollWithin";

GlobalWorkerOptions.workerSrc = workerUrl;

export type PdfStatus = "loading" | "ready" | "missing" | "failed" | "locked";

function failureStatus(error: unknown): PdfStatus {
  const httpStatus = (error as { status?: unknown } | null)?.status;
  if (httpStatus === 401) return "locked";
  const name = error instanceof Error ? error.name : "";
  const missing = httpStatus === 404 || name === "MissingPDFException" || /404|Missing/.test(String(error));
  return missing ? "missing" : "failed";
}

interface Loaded {
  key: string;
  pdf: PDFDocumentProxy | null;
  status: PdfStatus;
}

/** The document's PDF through pdf.js (range requests): loaded once per document, whatever page is shown. */
function usePdfDocument(collection: string, fileName: string) {
  const grants = useAccessGrants();
  const key = `${collection}/${fileName}/${grants}`;
  const [loaded, setLoaded] = useState<Loaded>({ key: "", pdf: null, status: "loading" });
  useEffect(() => {
    let cancelled = false;
    let doc: PDFDocumentProxy | null = null;
    const task = getDocument({ url: pdfUrl(collection, fileName), disableAutoFetch: true });
    task.promise.then(
      (pdf: PDFDocumentProxy) => {
        doc = pdf;
        if (!cancelled) setLoaded({ key, pdf, status: "loading" });
      },
      (error: unknown) => {
        if (cancelled) return;
        const failed = failureStatus(error);
        if (failed === "locked") accessGate.deny();
        setLoaded({ key, pdf: null, status: failed });
      },
    );
    return () => {
      cancelled = true;
      void task.destroy();
      void doc?.destroy();
    };
  }, [collection, fileName, key]);
  const current: Loaded = loaded.key === key ? loaded : { key, pdf: null, status: "loading" };
  const setStatus = useCallback(
    (status: PdfStatus) => setLoaded((before) => (before.key === key ? { ...before, status } : before)),
    [key],
  );
  return { pdf: current.pdf, status: current.status, setStatus };
}

/**
 * One page of the uploaded PDF drawn on a canvas with pdf.js's text layer over it, fit to the frame's width
 * times `zoom`; the quote's characters in the text layer are marked and scrolled into view inside the
 * frame (never the page around it). Documents ingested from a folder by the CLI have no PDF to serve: the
 * panel says so and the page text stands in. Refused for want of the access token (401): the app asks for
 * it, and the page loads again once given.
 */
export default function PdfPage({
  collection,
  document: fileName,
  page,
  pageText,
  range,
  zoom = 1,
  onStatus,
}: {
  collection: string;
  document: string;
  page: number;
  pageText: string | null;
  range: TextRange | null;
  zoom?: number;
  onStatus?: (status: PdfStatus) => void;
}) {
  const { t } = useI18n();
  const canvas = useRef<HTMLCanvasElement>(null);
  const layer = useRef<HTMLDivElement>(null);
  const frame = useRef<HTMLDivElement>(null);
  const { pdf, status, setStatus } = usePdfDocument(collection, fileName);
  const [marked, setMarked] = useState(0);
  const [drawn, setDrawn] = useState("");

  useEffect(() => {
    onStatus?.(status);
  }, [status, onStatus]);

  useEffect(() => {
    if (!pdf) return;
    let cancelled = false;
    let render: RenderTask | null = null;
    let textLayer: TextLayer | null = null;
    (async () => {
      try {
        const pdfPage = await pdf.getPage(Math.min(Math.max(1, page), pdf.numPages));
        if (cancelled || !canvas.current || !layer.current || !frame.current) return;
        const width = frame.current.clientWidth || 600;
        const base = pdfPage.getViewport({ scale: 1 });
        const viewport = pdfPage.getViewport({ scale: (width / base.width) * zoom });
        const ratio = window.devicePixelRatio || 1;
        canvas.current.width = Math.floor(viewport.width * ratio);
        canvas.current.height = Math.floor(viewport.height * ratio);
        canvas.current.style.width = `${viewport.width}px`;
        canvas.current.style.height = `${viewport.height}px`;
        frame.current.style.setProperty("--total-scale-factor", String(viewport.scale));
        frame.current.style.setProperty("--scale-factor", String(viewport.scale));
        render = pdfPage.render({
          canvas: canvas.current,
          viewport,
          transform: ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0],
        });
        await render.promise;
        if (cancelled) return;
        layer.current.replaceChildren();
        textLayer = new TextLayer({ textContentSource: pdfPage.streamTextContent(), container: layer.current, viewport });
        await textLayer.render();
        if (cancelled) return;
        const ranges = pageText !== null && range !== null ? itemRanges(pageText, range, textLayer.textContentItemsStr) : [];
        const marks = markItems(textLayer.textDivs, ranges);
        setMarked(marks.length);
        setDrawn(`${page}@${zoom}`);
        setStatus("ready");
        if (marks[0]) scrollWithin(frame.current, marks[0]);
      } catch (error) {
        if (!cancelled) setStatus(failureStatus(error));
      }
    })();
    return () => {
      cancelled = true;
      render?.cancel();
      textLayer?.cancel();
    };
  }, [pdf, page, zoom, pageText, range, setStatus]);

  return (
    <div
      className="pdf-frame"
      ref={frame}
      data-testid="pdf-page"
      data-status={status}
      data-marks={marked}
      data-page={page}
      data-drawn={drawn}
      tabIndex={0}
      role="region"
      aria-label={t("viewer.pageArea")}
    >
      {(status === "loading" || status === "locked") && <p>{t("viewer.loadingPdf")}</p>}
      {status === "missing" && <p className="muted">{t("viewer.noPdf")}</p>}
      {status === "failed" && <p className="alert alert-warning">{t("viewer.pdfFailed")}</p>}
      <div className="pdf-page" hidden={status !== "ready" && status !== "loading"}>
        <canvas ref={canvas} aria-label={t("viewer.pdfLabel", { document: fileName, page })} role="img" />
        <div className="textLayer" ref={layer} />
      </div>
    </div>
  );
}
