import { useRef } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import type { TextRange } from "../lib/highlight";
import { scrollWithin } from "../lib/scrollWithin";

/** The page's stored text with the quote (its offsets) marked; opened, it shows the mark in its own box. */
export function PageText({
  text,
  range,
  label,
  open = false,
}: {
  text: string;
  range: TextRange | null;
  /** The summary's text (default: "Page text"). */
  label?: string;
  /** Shown open at first (the OCR text of a scanned page, beside its image). */
  open?: boolean;
}) {
  const { t } = useI18n();
  const body = useRef<HTMLDivElement>(null);
  const mark = useRef<HTMLElement>(null);
  return (
    <details
      className="page-text"
      open={open || undefined}
      onToggle={(event) => {
        if (event.currentTarget.open && body.current && mark.current) scrollWithin(body.current, mark.current);
      }}
    >
      <summary>{label ?? t("viewer.pageText")}</summary>
      <div className="page-text-body" data-testid="page-text" ref={body}>
        {range ? (
          <>
            {text.slice(0, range.start)}
            <mark ref={mark} className="highlight">
              {text.slice(range.start, range.end)}
            </mark>
            {text.slice(range.end)}
          </>
        ) : (
          text
        )}
      </div>
    </details>
  );
}
