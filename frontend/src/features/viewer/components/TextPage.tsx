import { useEffect, useRef } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import type { TextRange } from "../lib/highlight";
import { scrollWithin } from "../lib/scrollWithin";

/** Room above a quote taller than the text's box, whose start is scrolled to the box's top. */
const START_MARGIN_PX = 8;

/**
 * A page of a document that has no pages of its own (DOCX, HTML, Markdown, text): its stored text, the text
 * quotes are cut from, with the quote marked and scrolled into view (its start, when it is taller than
 * the box).
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
    const box = body.current;
    const marked = mark.current;
    if (!box || !marked) return;
    const markTop = marked.getBoundingClientRect().top - box.getBoundingClientRect().top;
    // a quote taller than the box starts at its top; a shorter one stands in its middle
    if (marked.getBoundingClientRect().height > box.clientHeight) box.scrollTop += markTop - START_MARGIN_PX;
    else scrollWithin(box, marked);
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
