import { useEffect, useRef } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import type { TextRange } from "../lib/highlight";
import { scrollWithin } from "../lib/scrollWithin";

/**
 * A page of a document that has no pages of its own (DOCX, HTML, Markdown, text): its stored text, the text
 * quotes are cut from, with the quote marked and scrolled into view.
 */
export function TextPage({
  document,
  page,
  text,
  range,
}: {
  document: string;
  page: number;
  text: string;
  range: TextRange | null;
}) {
  const { t } = useI18n();
  const body = useRef<HTMLDivElement>(null);
  const mark = useRef<HTMLElement>(null);
  useEffect(() => {
    if (body.current && mark.current) scrollWithin(body.current, mark.current);
  }, [text, range]);
  return (
    <div
      className="text-page"
      data-testid="text-page"
      ref={body}
      role="region"
      aria-label={t("viewer.documentText", { document, page })}
      tabIndex={0}
    >
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
  );
}
