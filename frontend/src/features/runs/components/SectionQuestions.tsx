import { useRef } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import { MAX_QUESTION_LENGTH, MAX_QUESTIONS } from "./outlineEdits";

/**
 * A section's questions (what it is searched for), one line each: edit, remove, add (at most
 * MAX_QUESTIONS). Blank lines are dropped on approval; a section without questions is searched under its title.
 */
export function SectionQuestions({
  sectionKey,
  n,
  questions,
  onChange,
}: {
  sectionKey: string;
  n: number;
  questions: string[];
  onChange: (questions: string[]) => void;
}) {
  const { t } = useI18n();
  const focusNew = useRef(false);
  const set = (index: number, text: string) => onChange(questions.map((q, i) => (i === index ? text : q)));
  const add = () => {
    focusNew.current = true;
    onChange([...questions, ""]);
  };
  return (
    <fieldset className="section-questions">
      <legend className="small">{t("outline.questions", { n })}</legend>
      {questions.length === 0 && <p className="muted small">{t("outline.noQuestions")}</p>}
      <ol aria-label={t("outline.questions", { n })}>
        {questions.map((question, i) => {
          const q = i + 1;
          const last = i === questions.length - 1;
          return (
            <li key={i} className="section-question">
              <input
                id={`section-question-${sectionKey}-${q}`}
                aria-label={t("outline.question", { q, n })}
                value={question}
                maxLength={MAX_QUESTION_LENGTH}
                ref={(el) => {
                  if (el && last && focusNew.current) {
                    focusNew.current = false;
                    el.focus();
                  }
                }}
                onChange={(e) => set(i, e.target.value)}
              />
              <button
                type="button"
                onClick={() => onChange(questions.filter((_, j) => j !== i))}
                aria-label={t("outline.removeQuestion", { q, n })}
              >
                ✕
              </button>
            </li>
          );
        })}
      </ol>
      <button type="button" className="small" onClick={add} disabled={questions.length >= MAX_QUESTIONS}>
        {t("outline.addQuestion", { n })}
      </button>
    </fieldset>
  );
}
