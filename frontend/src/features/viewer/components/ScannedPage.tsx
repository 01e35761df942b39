import { useEffect, useRef, useState } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import { usePageBoxes } from "../api/usePageBoxes";
import type { TextRange } from "../lib/highlight";
import { pageImageUrl } from "../lib/pdfUrl";
import { scrollWithin } from "../lib/scrollWithin";

/** Pixels the server draws the page image at: sharp at the panel's width times the zoom steps up to 2. */
const IMAGE_WIDTH = 1600;

const percent = (fraction: number) => `${(fraction * 100).toFixed(3)}%`;

/**
 * A page read by OCR: its image (the scan) with the quote's words marked by the boxes OCR returned for them
 * (the quote's offsets in the page's OCR text), fit to the frame's width times `zoom`, the first mark
 * scrolled into view inside the frame.
 */
export function ScannedPage({
  collection,
  document: fileName,
  page,
  range,
  zoom = 1,
}: {
  collection: string;
  document: string;
  page: number;
  range: TextRange | null;
  zoom?: number;
}) {
  const { t } = useI18n();
  const frame = useRef<HTMLDivElement>(null);
  const firstMark = useRef<HTMLElement>(null);
  const [image, setImage] = useState<"loading" | "ready" | "failed">("loading");
  const boxes = usePageBoxes(collection, fileName, page, range);
  const marks = range ? (boxes.data?.boxes ?? []) : [];

  useEffect(() => {
    if (image === "ready" && frame.current && firstMark.current) scrollWithin(frame.current, firstMark.current);
  }, [image, marks.length, zoom]);

  return (
    <div
      className="pdf-frame"
      ref={frame}
      data-testid="scanned-page"
      data-status={image}
      data-marks={image === "ready" ? marks.length : 0}
      data-page={page}
      tabIndex={0}
      role="region"
      aria-label={t("ocr.pageArea")}
    >
      {image === "loading" && <p>{t("viewer.loadingPdf")}</p>}
      {image === "failed" && <p className="alert alert-warning">{t("ocr.imageFailed")}</p>}
      <div className="scan-page" style={{ width: `${zoom * 100}%` }} hidden={image === "failed"}>
        <img
          key={`${fileName}/${page}`}
          src={pageImageUrl(collection, fileName, page, IMAGE_WIDTH)}
          alt={t("ocr.imageLabel", { document: fileName, page })}
          onLoad={() => setImage("ready")}
          onError={() => setImage("failed")}
        />
        {image === "ready" &&
          marks.map((box, index) => (
            <mark
              key={`${box.start}-${box.end}`}
              ref={index === 0 ? firstMark : undefined}
              className="highlight ocr-box"
              data-testid="ocr-mark"
              style={{ left: percent(box.x0), top: percent(box.y0), width: percent(box.x1 - box.x0), height: percent(box.y1 - box.y0) }}
            />
          ))}
      </div>
    </div>
  );
}
