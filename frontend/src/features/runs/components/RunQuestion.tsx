import { useLayoutEffect, useRef, useState } from "react";
import { useI18n } from "../../../shared/i18n/i18n";

/** Questions longer than this always get the toggle (where the page cannot be measured). */
const LONG_QUESTION = 280;

/** The run's question as the page's heading: clamped to three lines, with a toggle that shows it whole
 * when it is longer. */
export function RunQuestion({ question }: { question: string }) {
  const { t } = useI18n();
  const heading = useRef<HTMLHeadingElement>(null);
  const [whole, setWhole] = useState(false);
  const [overflows, setOverflows] = useState(question.length > LONG_QUESTION);

  useLayoutEffect(() => {
    const el = heading.current;
    if (el === null || whole) return;
    const measure = () => setOverflows(question.length > LONG_QUESTION || el.scrollHeight > el.clientHeight + 1);
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [question, whole]);

  return (
    <div className="run-question">
      <h1 id="run-question" ref={heading} className={whole ? undefined : "clamped"}>
        {question}
      </h1>
      {(overflows || whole) && (
        <button
          type="button"
          className="link"
          aria-expanded={whole}
          aria-controls="run-question"
          onClick={() => setWhole((w) => !w)}
        >
          {whole ? t("run.hideQuestion") : t("run.showQuestion")}
        </button>
      )}
    </div>
  );
}
