import { useI18n } from "../../../shared/i18n/i18n";

/** Says that the page's text was read by OCR, with OCR's confidence; a warning where the server marks it
 * low (ingestion.ocr.low_confidence), asking to check the quote against the image. */
export function OcrNote({ confidence, low }: { confidence: number | null; low: boolean }) {
  const { t, formatNumber } = useI18n();
  const shown = confidence === null ? "?" : formatNumber(confidence, 0);
  return (
    <p className={low ? "alert alert-warning" : "muted"} data-testid="ocr-note">
      {low ? t("ocr.lowConfidence", { confidence: shown }) : t("ocr.pageRead", { confidence: shown })}
    </p>
  );
}
