import { getDocument, GlobalWorkerOptions, TextLayer, type PDFDocumentProxy } from "pdfjs-dist";
import workerUrl from "pdfjs-dist/build/pdf.worker.min.mjs?url";
import { useEffect, useRef, useState } from "react";
import { apiUrl } from "../../../shared/api/base";
import { accessGate } from "../../../shared/auth/accessGate";
import { useAccessGrants } from "../../../shared/auth/useAccess";
import { useI18n } from "../../../shared/i18n/i18n";
import { itemRanges, markItems, type TextRange } from "../lib/highlight";

GlobalWorkerOptions.workerSrc = workerUrl;

type Status = "loading" | "ready" | "missing" | "failed" | "locked";

/**
 * One page of the uploaded PDF (range requests through pdf.js), drawn on a canvas with pdf.js's text layer
 * over it; the quote's characters in the text layer are marked and scrolled into view. Documents ingested
 * from a folder by the CLI have no PDF to serve: the panel says so and the page text below stands in.
 * Refused for want of the access token (401): the app asks for it, and the page loads again once given.
 */
export default function PdfPage({
  collection,
  document: fileName,
  page,
  pageText,
  range,
}: {
  collection: string;
  document: string;
  page: number;
  pageText: string | null;
  range: TextRange | null;
}) {
  const { t } = useI18n();
  const canvas = useRef<HTMLCanvasElement>(null);
  const layer = useRef<HTMLDivElement>(null);
  const frame = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState<Status>("loading");
  const [marked, setMarked] = useState(0);
  const grants = useAccessGrants();

  useEffect(() => {
    let cancelled = false;
    let pdf: PDFDocumentProxy | null = null;
    let textLayer: TextLayer | null = null;
    const url = apiUrl(
      `/api/collections/${encodeURIComponent(collection)}/documents/${encodeURIComponent(fileName)}/pdf`,
    );
    const task = getDocument({ url, disableAutoFetch: true });
    (async () => {
      try {
        pdf = await task.promise;
        const pdfPage = await pdf.getPage(Math.min(Math.max(1, page), pdf.numPages));
        if (cancelled || !canvas.current || !layer.current || !frame.current) return;
        const width = frame.current.clientWidth || 600;
        const base = pdfPage.getViewport({ scale: 1 });
        const viewport = pdfPage.getViewport({ scale: width / base.width });
        const ratio = window.devicePixelRatio || 1;
        canvas.current.width = Math.floor(viewport.width * ratio);
        canvas.current.height = Math.floor(viewport.height * ratio);
        canvas.current.style.width = `${viewport.width}px`;
        canvas.current.style.height = `${viewport.height}px`;
        frame.current.style.setProperty("--total-scale-factor", String(viewport.scale));
        frame.current.style.setProperty("--scale-factor", String(viewport.scale));
        await pdfPage.render({
          canvas: canvas.current,
          viewport,
          transform: ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0],
        }).promise;
        if (cancelled) return;
        layer.current.replaceChildren();
        textLayer = new TextLayer({ textContentSource: pdfPage.streamTextContent(), container: layer.current, viewport });
        await textLayer.render();
        if (cancelled) return;
        const ranges = pageText !== null && range !== null ? itemRanges(pageText, range, textLayer.textContentItemsStr) : [];
        const marks = markItems(textLayer.textDivs, ranges);
        setMarked(marks.length);
        marks[0]?.scrollIntoView?.({ block: "center" });
        setStatus("ready");
      } catch (error) {
        if (cancelled) return;
        const httpStatus = (error as { status?: unknown } | null)?.status;
        if (httpStatus === 401) {
          accessGate.deny();
          setStatus("locked");
          return;
        }
        const name = error instanceof Error ? error.name : "";
        const missing = httpStatus === 404 || name === "MissingPDFException" || /404|Missing/.test(String(error));
        setStatus(missing ? "missing" : "failed");
      }
    })();
    return () => {
      cancelled = true;
      textLayer?.cancel();
      void task.destroy();
      void pdf?.destroy();
    };
  }, [collection, fileName, page, pageText, range, grants]);

  return (
    <div className="pdf-frame" ref={frame} data-testid="pdf-page" data-status={status} data-marks={marked}>
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
