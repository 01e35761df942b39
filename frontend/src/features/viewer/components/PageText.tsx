import { useEffect, useRef } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import type { TextRange } from "../lib/highlight";

/** The page's stored text with the quote (its offsets) marked. */
export function PageText({ text, range }: { text: string; range: TextRange | null }) {
  const { t } = useI18n();
  const mark = useRef<HTMLElement>(null);
  useEffect(() => {
    mark.current?.scrollIntoView?.({ block: "center" });
  }, [range?.start, range?.end]);
  return (
    <details className="page-text" open={false}>
      <summary>{t("viewer.pageText")}</summary>
      <div className="page-text-body" data-testid="page-text">
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
