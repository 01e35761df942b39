import { Fragment, type ReactNode } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import { parseMarkdown, type Block, type Inline } from "../lib/markdown";

/**
 * The report's Markdown (lib/markdown.ts: raw HTML stays text, a link to anything but a web or mail
 * address or a fragment is its text alone), rendered as React elements: citation markers become buttons that open the cited page; weakly supported ones are marked;
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

  const cite = (n: number, text: string, key: number): ReactNode => {
    if (!known.has(n)) return <span key={key}>{text}</span>;
    const url = web?.get(n);
    if (url)
      return (
        <a key={key} className="cite web" href={url} target="_blank" rel="noreferrer noopener" aria-label={t("report.citeWeb", { n })}>
          {text}
        </a>
      );
    const weak = flagged.has(n);
    return (
      <button
        key={key}
        type="button"
        className={`cite${weak ? " flagged" : ""}${active === n ? " active" : ""}`}
        aria-label={weak ? t("report.citeFlagged", { n }) : t("report.cite", { n })}
        aria-pressed={active === n}
        onClick={() => onCite(n)}
      >
        {text}
        {weak && <span aria-hidden="true">⚠</span>}
      </button>
    );
  };

  const inlines = (items: Inline[]): ReactNode[] =>
    items.map((item, key) => {
      switch (item.kind) {
        case "text":
          return <Fragment key={key}>{item.text}</Fragment>;
        case "code":
          return <code key={key}>{item.text}</code>;
        case "strong":
          return <strong key={key}>{inlines(item.children)}</strong>;
        case "em":
          return <em key={key}>{inlines(item.children)}</em>;
        case "link":
          return item.href.startsWith("#") ? (
            <a key={key} href={item.href}>
              {inlines(item.children)}
            </a>
          ) : (
            <a key={key} href={item.href} target="_blank" rel="noreferrer noopener">
              {inlines(item.children)}
            </a>
          );
        case "cite":
          return cite(item.n, item.text, key);
        case "uncited":
          return (
            <mark key={key} className="uncited" title={t("report.uncitedHint")}>
              {item.text}
              <span className="visually-hidden"> {t("report.uncitedHint")}</span>
            </mark>
          );
      }
    });

  const blocks = (items: Block[]): ReactNode[] =>
    items.map((block, key) => {
      switch (block.kind) {
        case "heading": {
          const Heading = `h${block.level}` as const;
          return (
            <Heading key={key}>
              {inlines(block.inlines)}
              {block.level === 2 && assembled?.has(block.text) && (
                <>
                  {" "}
                  <span className="badge assembled" data-badge="">
                    {t("report.assembledBadge")}
                  </span>
                </>
              )}
            </Heading>
          );
        }
        case "paragraph":
          return <p key={key}>{inlines(block.inlines)}</p>;
        case "list": {
          const items = block.items.map((item, i) => <li key={i}>{inlines(item)}</li>);
          return block.ordered ? (
            <ol key={key} start={block.start === 1 ? undefined : block.start}>
              {items}
            </ol>
          ) : (
            <ul key={key}>{items}</ul>
          );
        }
        case "quote":
          return <blockquote key={key}>{blocks(block.blocks)}</blockquote>;
        case "code":
          return (
            <pre key={key}>
              <code>{block.text}</code>
            </pre>
          );
      }
    });

  return <div className="markdown">{blocks(parseMarkdown(markdown))}</div>;
}
