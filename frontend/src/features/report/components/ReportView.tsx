import { useCallback, useMemo, useRef } from "react";
import type { ResearchResult } from "../../../api/generated/types.gen";
import { apiUrl } from "../../../shared/api/base";
import { useI18n } from "../../../shared/i18n/i18n";
import { withoutSourcesSection } from "../lib/citations";
import { inMarkdown, locate, reveal, type Target } from "../lib/locate";
import { AssembledNotice } from "./AssembledNotice";
import { ChecksPanel } from "./ChecksPanel";
import { EvidenceList } from "./EvidenceList";
import { GuardCounts } from "./GuardCounts";
import { ReportContents, sectionAnchor } from "./ReportContents";
import { ReportMarkdown } from "./ReportMarkdown";
import { QualityPanel } from "./QualityPanel";
import { SourcesList } from "./SourcesList";
import { TokenUsage } from "./TokenUsage";

/** The report's title line ("# ..."), when its Markdown starts with one. */
function titleLine(markdown: string): string | null {
  const first = markdown.trimStart().split("\n", 1)[0] ?? "";
  return first.startsWith("# ") ? first : null;
}

/**
 * The finished report: Markdown with clickable citations and marked uncited sentences, sections assembled
 * from the findings explained, quality scores, the checks panel (measured checks and their problems, what
 * the guards changed, the evidence cited and left out, tokens), sources, warnings, export. A report run's
 * result (with `sections`) is shown as its title, a table of contents and each section under its anchor;
 * the citation numbers are the report's global ones.
 */
export default function ReportView({
  runId,
  result,
  onCite,
  active,
}: {
  runId: string;
  result: ResearchResult;
  onCite: (n: number | null) => void;
  active: number | null;
}) {
  const { t } = useI18n();
  const sources = useMemo(() => result.sources ?? [], [result]);
  const warnings = result.warnings ?? [];
  const flagged = useMemo(() => new Set(sources.filter((s) => s.support?.flagged).map((s) => s.n)), [sources]);
  const known = useMemo(() => new Set(sources.map((s) => s.n)), [sources]);
  const web = useMemo(
    () => new Map(sources.filter((s) => s.kind === "web" && s.url).map((s) => [s.n, s.url as string])),
    [sources],
  );
  const sections = result.sections ?? [];
  const title = sections.length > 0 ? titleLine(result.report_markdown ?? "") : null;
  const markdown = result.report_markdown ?? "";
  const assembledSections = useMemo(() => result.assembled_sections ?? [], [result]);
  const assembled = useMemo(() => new Set(assembledSections.map((a) => a.heading)), [assembledSections]);
  const markdownProps = { flagged, known, web, active, onCite, assembled };
  const body = useRef<HTMLDivElement>(null);
  const canShow = useCallback((target: Target) => inMarkdown(markdown, target), [markdown]);
  const show = useCallback((target: Target) => {
    const root = body.current;
    const el = root ? locate(root, target) : null;
    if (root && el) reveal(root, el);
  }, []);
  const tokens = result.llm_tokens ?? {};
  const evidence = result.evidence ?? [];
  const hasChecks = result.checks || result.text_guards || evidence.length > 0 || Object.keys(tokens).length > 0;
  const base = `/api/runs/${encodeURIComponent(runId)}`;
  return (
    <section className="panel report" data-testid="report" aria-labelledby="report-title">
      <div className="page-head">
        <h2 id="report-title">{t("report.title")}</h2>
        <div className="actions">
          <a className="button" href={apiUrl(`${base}/report.md`)} download={`rabbithole-${runId}.md`}>
            {t("report.exportMarkdown")}
          </a>
          <a className="button" href={apiUrl(`${base}/report`)} download={`rabbithole-${runId}.json`}>
            {t("report.exportJson")}
          </a>
          <a className="button" href={apiUrl(`${base}/report.docx`)} download={`rabbithole-${runId}.docx`}>
            {t("report.exportDocx")}
          </a>
        </div>
      </div>
      {!result.answerable && <p className="alert alert-warning">{t("report.unanswerable")}</p>}
      <AssembledNotice
        sections={assembledSections}
        canShow={(heading) => canShow({ section: heading })}
        onShow={(heading) => show({ section: heading })}
      />
      <div ref={body}>
        {sections.length > 0 ? (
          <>
            {title && <ReportMarkdown markdown={title} {...markdownProps} />}
            <ReportContents sections={sections} />
            {sections.map((section) => (
              <section key={section.id} id={sectionAnchor(section.id)} data-testid="report-section" tabIndex={-1}>
                <ReportMarkdown markdown={section.markdown} {...markdownProps} />
              </section>
            ))}
          </>
        ) : (
          <ReportMarkdown markdown={withoutSourcesSection(markdown)} {...markdownProps} />
        )}
      </div>
      {/* the answer first, then its sources; how it was checked after them */}
      <SourcesList sources={sources} onCite={onCite} active={active} />
      {result.quality && <QualityPanel quality={result.quality} stats={result.citation_stats ?? {}} />}
      {hasChecks && (
        <ChecksPanel checks={result.checks ?? null} canShow={canShow} onShow={show}>
          {result.text_guards && <GuardCounts guards={result.text_guards} />}
          <EvidenceList evidence={evidence} onCite={onCite} active={active} />
          <TokenUsage tokens={tokens} />
        </ChecksPanel>
      )}
      {warnings.length > 0 && (
        <details>
          <summary>{t("report.warnings", { n: warnings.length })}</summary>
          <ul>
            {warnings.map((w, i) => (
              <li key={i}>{w}</li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
