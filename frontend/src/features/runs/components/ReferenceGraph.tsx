import { useMemo, useState } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import type { ReferenceFollowed } from "../events/types";
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

function label(node: Node): string {
  return node.section ? `${node.document} ${node.section}` : node.document;
}

/**
 * The references the run followed, live: drawn as a graph (a column per hop), and as a list grouped by the
 * place they start from. A place is a button in both: choosing it shows only the references from and to it.
 */
export function ReferenceGraph({ references }: { references: ReferenceFollowed[] }) {
  const { t } = useI18n();
  const [focus, setFocus] = useState<string | null>(null);
  const layout = useMemo(() => layoutReferences(references), [references]);
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
      <ul className="ref-graph">
        {shown.map((group) => (
          <li key={group.from.id}>
            <button type="button" className="node" aria-pressed={focus === group.from.id} onClick={() => setFocus(group.from.id)}>
              {label(group.from)}
            </button>
            <ul>
              {group.edges.map((edge) => (
                <li key={`${edge.to.id}-${edge.mention}`}>
                  <span aria-hidden="true" className="edge">→</span>
                  <span className="visually-hidden">{t("refs.cites")}</span>
                  <button type="button" className="node" aria-pressed={focus === edge.to.id} onClick={() => setFocus(edge.to.id)}>
                    {label(edge.to)}
                  </button>
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
