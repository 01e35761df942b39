import { useState, type FormEvent } from "react";
import { useNavigate, useSearchParams } from "react-router";
import type { CreateRun, RunOverrides } from "../../../api/generated/types.gen";
import { useI18n } from "../../../shared/i18n/i18n";
import { ErrorAlert } from "../../../shared/ui/ErrorAlert";
import { useCollections } from "../../collections";
import { useCreateRun } from "../api/useCreateRun";

function optionalInt(value: string): number | undefined {
  const n = Number.parseInt(value, 10);
  return value.trim() === "" || Number.isNaN(n) ? undefined : n;
}

type Mode = "interactive" | "quick" | "report";

/** The most characters of a question (or topic) the server takes (CreateRun.question's maxLength). */
export const MAX_QUESTION = 4000;

/** The report fields of the form: guidance, required section titles (one per line), refinement rounds. */
export interface ReportValues {
  guidance: string;
  sections: string;
  refinementRounds: string;
}

const NO_REPORT: ReportValues = { guidance: "", sections: "", refinementRounds: "" };

/**
 * The body of POST /api/runs from the form's values (empty advanced settings are left to the server); the
 * report fields only in report mode (the server refuses them in the others).
 */
export function createRunBody(
  values: {
    question: string;
    collections: string[];
    mode: Mode;
    depth: string;
    k: string;
    model: string;
  },
  report: ReportValues = NO_REPORT,
): CreateRun {
  const settings: RunOverrides = {};
  const depth = optionalInt(values.depth);
  const k = optionalInt(values.k);
  if (depth !== undefined) settings.depth = depth;
  if (k !== undefined) settings.k = k;
  if (values.model.trim()) settings.model = values.model.trim();
  const body: CreateRun = { question: values.question.trim(), collections: values.collections, mode: values.mode, settings };
  if (values.mode !== "report") return body;
  const guidance = report.guidance.trim();
  const sections = report.sections
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const rounds = optionalInt(report.refinementRounds);
  if (guidance) body.guidance = guidance;
  if (sections.length > 0) body.sections = sections;
  if (rounds !== undefined) body.refinement_rounds = rounds;
  return body;
}

export function NewRunPage() {
  const { t, formatNumber } = useI18n();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const collections = useCollections();
  const create = useCreateRun();
  const [question, setQuestion] = useState(params.get("q") ?? "");
  const [selected, setSelected] = useState<string[]>(params.getAll("collection"));
  const [mode, setMode] = useState<Mode>(params.get("mode") === "report" ? "report" : "interactive");
  const [guidance, setGuidance] = useState("");
  const [sections, setSections] = useState("");
  const [refinementRounds, setRefinementRounds] = useState("1");
  const [depth, setDepth] = useState("");
  const [k, setK] = useState("");
  const [model, setModel] = useState("");
  const [touched, setTouched] = useState(false);

  const names = collections.data?.map((c) => c.name) ?? [];
  const chosen = selected.length === 0 && names.length === 1 ? names : selected;
  const length = question.trim().length;
  const tooLong = length > MAX_QUESTION;
  const invalid = length === 0 || tooLong || chosen.length === 0;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (invalid) return;
    const report = { guidance, sections, refinementRounds };
    create.mutate(createRunBody({ question, collections: chosen, mode, depth, k, model }, report), {
      onSuccess: (created) => navigate(`/runs/${encodeURIComponent(created.run_id)}`),
    });
  };

  const toggle = (name: string, on: boolean) =>
    setSelected((before) => {
      const base = before.length === 0 && names.length === 1 ? names : before;
      return on ? [...new Set([...base, name])] : base.filter((n) => n !== name);
    });

  return (
    <section aria-labelledby="new-run-title">
      <h1 id="new-run-title">{t("newRun.title")}</h1>
      <form className="form" onSubmit={submit} noValidate>
        <label htmlFor="question">{mode === "report" ? t("newRun.topic") : t("newRun.question")}</label>
        <textarea
          id="question"
          rows={3}
          value={question}
          required
          aria-invalid={tooLong || (touched && length === 0)}
          aria-describedby="question-length"
          onChange={(e) => setQuestion(e.target.value)}
        />
        <p id="question-length" className={tooLong ? "field-error" : "muted small"} aria-live="polite">
          {tooLong
            ? t("newRun.questionTooLong", { length: formatNumber(length), max: formatNumber(MAX_QUESTION), over: formatNumber(length - MAX_QUESTION) })
            : t("newRun.questionLength", { length: formatNumber(length), max: formatNumber(MAX_QUESTION) })}
        </p>
        {touched && length === 0 && (
          <p className="field-error">{mode === "report" ? t("newRun.topicRequired") : t("newRun.questionRequired")}</p>
        )}

        <fieldset>
          <legend>{t("newRun.collections")}</legend>
          <ErrorAlert error={collections.error} />
          {collections.data?.length === 0 && <p>{t("newRun.noCollections")}</p>}
          {names.map((name) => (
            <label key={name} className="check">
              <input type="checkbox" checked={chosen.includes(name)} onChange={(e) => toggle(name, e.target.checked)} />
              {name}
            </label>
          ))}
          {touched && chosen.length === 0 && <p className="field-error">{t("newRun.collectionsRequired")}</p>}
        </fieldset>

        <fieldset>
          <legend>{t("newRun.mode")}</legend>
          <label className="check">
            <input type="radio" name="mode" checked={mode === "interactive"} onChange={() => setMode("interactive")} />
            {t("newRun.interactive")}
          </label>
          <label className="check">
            <input type="radio" name="mode" checked={mode === "quick"} onChange={() => setMode("quick")} />
            {t("newRun.quick")}
          </label>
          <label className="check">
            <input type="radio" name="mode" checked={mode === "report"} onChange={() => setMode("report")} />
            {t("newRun.report")}
          </label>
        </fieldset>

        {mode === "report" && (
          <fieldset data-testid="report-fields">
            <legend>{t("newRun.reportOptions")}</legend>
            <label htmlFor="guidance">{t("newRun.guidance")}</label>
            <textarea
              id="guidance"
              rows={2}
              maxLength={4000}
              value={guidance}
              placeholder={t("newRun.guidanceHint")}
              onChange={(e) => setGuidance(e.target.value)}
            />
            <label htmlFor="required-sections">{t("newRun.sections")}</label>
            <textarea
              id="required-sections"
              rows={3}
              value={sections}
              aria-describedby="required-sections-hint"
              onChange={(e) => setSections(e.target.value)}
            />
            <p id="required-sections-hint" className="muted small">
              {t("newRun.sectionsHint")}
            </p>
            <label htmlFor="refinement-rounds">{t("newRun.refinementRounds")}</label>
            <input
              id="refinement-rounds"
              type="number"
              min={0}
              max={5}
              value={refinementRounds}
              onChange={(e) => setRefinementRounds(e.target.value)}
            />
          </fieldset>
        )}

        <details>
          <summary>{t("newRun.advanced")}</summary>
          <div className="grid-3">
            <label>
              {t("newRun.depth")}
              <input type="number" min={0} max={10} value={depth} onChange={(e) => setDepth(e.target.value)} />
            </label>
            <label>
              {t("newRun.k")}
              <input type="number" min={1} max={100} value={k} onChange={(e) => setK(e.target.value)} />
            </label>
            <label>
              {t("newRun.model")}
              <input type="text" value={model} placeholder="qwen3:8b" onChange={(e) => setModel(e.target.value)} />
            </label>
          </div>
        </details>

        <ErrorAlert error={create.error} />
        <button type="submit" className="primary" disabled={create.isPending}>
          {mode === "report" ? t("newRun.startReport") : t("newRun.start")}
        </button>
      </form>
    </section>
  );
}
