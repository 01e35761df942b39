import { useMemo, useState } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import { placeTarget, type PageTarget } from "../../viewer";
import type { ReferenceFollowed, ReferencePlace } from "../events/types";
import { layoutReferences } from "../lib/referenceLayout";
import { ReferenceDiagram } from "./ReferenceDiagram";

interface Node {
  id: string;
  document: string;
  section: string | null;
}

function nodeOf(place: { document: string; section?: string | null }): Node {
  const section = place.section ?? null;
  return { id: `${place.document}\u0000${section ?? ""}`, document: place.document, section };
}

/** Each place's page target (its first known page), for the places the events say where to open. */
function pageTargets(references: ReferenceFollowed[]): Map<string, PageTarget> {
  const out = new Map<string, PageTarget>();
  const paged = new Set<string>();
  const note = (place: ReferencePlace) => {
    const id = nodeOf(place).id;
    const target = placeTarget(place);
    if (!target || paged.has(id)) return;
    out.set(id, target);
    if (place.page != null) paged.add(id);
  };
  for (const ref of references) {
    note(ref.from);
    note(ref.to);
  }
  return out;
}

function label(node: Node): string {
  return node.section ? `${node.document} ${node.section}` : node.document;
}

/**
 * The references the run followed, live: drawn as a graph (a column per hop), and as a list grouped by the
 * place they start from. A place is a button in both: choosing it shows only the references from and to it.
 */
export function ReferenceGraph({
  references,
  onOpenPage,
}: {
  references: ReferenceFollowed[];
  /** Opens a place's page in the viewer; without it, places only filter the graph. */
  onOpenPage?: (target: PageTarget) => void;
}) {
  const { t } = useI18n();
  const [focus, setFocus] = useState<string | null>(null);
  const layout = useMemo(() => layoutReferences(references), [references]);
  const targets = useMemo(() => pageTargets(references), [references]);
  const openButton = (node: Node, wide = false) => {
    const target = targets.get(node.id);
    if (!target || !onOpenPage) return null;
    return (
      <button
        type="button"
        className="link small open-page"
        aria-label={t("refs.openPage", { place: label(node) })}
        onClick={() => onOpenPage(target)}
      >
        {wide ? t("refs.openPage", { place: label(node) }) : t("common.page", { n: target.page })}
      </button>
    );
  };
  const focused = focus === null ? null : (layout.nodes.find((n) => n.id === focus) ?? null);
  const groups = useMemo(() => {
    const bySource = new Map<string, { from: Node; edges: Array<{ to: Node; mention: string; depth: number; count: number }> }>();
    for (const ref of references) {
      const from = nodeOf(ref.from);
      const to = nodeOf(ref.to);
      const group = bySource.get(from.id) ?? { from, edges: [] };
      const same = group.edges.find((e) => e.to.id === to.id && e.mention === ref.mention);
      if (same) same.count += 1;
      else group.edges.push({ to, mention: ref.mention, depth: ref.depth, count: 1 });
      bySource.set(from.id, group);
    }
    return [...bySource.values()];
  }, [references]);
  if (references.length === 0) return null;
  const shown = focus === null ? groups : groups
    .map((g) => (g.from.id === focus ? g : { ...g, edges: g.edges.filter((e) => e.to.id === focus) }))
    .filter((g) => g.edges.length > 0);
  return (
    <section className="panel" aria-labelledby="refs-title" data-testid="reference-graph">
      <h2 id="refs-title">
        {t("refs.title")} <span className="muted">({references.length})</span>
      </h2>
      {focus !== null && (
        <button type="button" className="link" onClick={() => setFocus(null)}>
          {t("refs.showAll")}
        </button>
      )}
      <ReferenceDiagram layout={layout} focus={focus} onFocus={setFocus} />
      {focused && openButton(focused, true)}
      <ul className="ref-graph">
        {shown.map((group) => (
          <li key={group.from.id}>
            <button type="button" className="node" aria-pressed={focus === group.from.id} onClick={() => setFocus(group.from.id)}>
              {label(group.from)}
            </button>{" "}
            {openButton(group.from)}
            <ul>
              {group.edges.map((edge) => (
                <li key={`${edge.to.id}-${edge.mention}`}>
                  <span aria-hidden="true" className="edge">→</span>
                  <span className="visually-hidden">{t("refs.cites")}</span>
                  <button type="button" className="node" aria-pressed={focus === edge.to.id} onClick={() => setFocus(edge.to.id)}>
                    {label(edge.to)}
                  </button>{" "}
                  {openButton(edge.to)}
                  <span className="muted">
                    {" "}„{edge.mention}“ · {t("refs.depth", { n: edge.depth })}
                    {edge.count > 1 && ` · ×${edge.count}`}
                  </span>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </section>
  );
}
