import { Children, type ReactNode } from "react";
import Markdown, { type Components } from "react-markdown";
import { useI18n } from "../../../shared/i18n/i18n";
import { citationNumber, remarkCitations, UNCITED_HREF } from "../lib/citations";

/** The plain text of a heading's rendered children. */
function textOf(children: ReactNode): string {
  return Children.toArray(children)
    .map((child) => (typeof child === "string" || typeof child === "number" ? String(child) : ""))
    .join("")
    .trim();
}

/**
 * The report's Markdown, rendered without raw HTML (skipHtml) and with URLs sanitised (react-markdown's
 * default): citation markers become buttons that open the cited page; weakly supported ones are marked;
 * a web source's marker is a link to its page (it has no PDF page to show); the mark of a sentence that
 * cites nothing ("[uncited]") is marked as such; the heading of a section assembled from the findings
 * (`assembled`) carries a badge.
 */
export function ReportMarkdown({
  markdown,
  flagged,
  known,
  web,
  active,
  onCite,
  assembled,
}: {
  markdown: string;
  flagged: ReadonlySet<number>;
  known: ReadonlySet<number>;
  /** Web sources' addresses by number: their citations link to the page instead of opening the viewer. */
  web?: ReadonlyMap<number, string>;
  active: number | null;
  onCite: (n: number) => void;
  /** Headings of the sections assembled from the verified findings. */
  assembled?: ReadonlySet<string>;
}) {
  const { t } = useI18n();
  const components: Components = {
    h2: ({ children }) => (
      <h2>
        {children}
        {assembled?.has(textOf(children)) && (
          <>
            {" "}
            <span className="badge assembled" data-badge="">
              {t("report.assembledBadge")}
            </span>
          </>
        )}
      </h2>
    ),
    a: ({ href, children }) => {
      if (href === UNCITED_HREF)
        return (
          <mark className="uncited" title={t("report.uncitedHint")}>
            {children}
            <span className="visually-hidden"> {t("report.uncitedHint")}</span>
          </mark>
        );
      const n = citationNumber(href);
      if (n === null)
        return (
          <a href={href} target="_blank" rel="noreferrer noopener">
            {children}
          </a>
        );
      if (!known.has(n)) return <span>{children}</span>;
      const url = web?.get(n);
      if (url)
        return (
          <a className="cite web" href={url} target="_blank" rel="noreferrer noopener" aria-label={t("report.citeWeb", { n })}>
            {children}
          </a>
        );
      const weak = flagged.has(n);
      return (
        <button
          type="button"
          className={`cite${weak ? " flagged" : ""}${active === n ? " active" : ""}`}
          aria-label={weak ? t("report.citeFlagged", { n }) : t("report.cite", { n })}
          aria-pressed={active === n}
          onClick={() => onCite(n)}
        >
          {children}
          {weak && <span aria-hidden="true">⚠</span>}
        </button>
      );
    },
  };
  return (
    <div className="markdown">
      <Markdown skipHtml remarkPlugins={[remarkCitations]} components={components}>
        {markdown}
      </Markdown>
    </div>
  );
}
