import type { KeyboardEvent } from "react";
import { useI18n } from "../../../shared/i18n/i18n";
import type { GraphLayout, GraphNode } from "../lib/referenceLayout";

const NODE_W = 170;
const NODE_H = 26;
const GAP_X = 56;
const GAP_Y = 12;
const PAD = 4;

function x(node: GraphNode): number {
  return PAD + node.column * (NODE_W + GAP_X);
}

function y(node: GraphNode): number {
  return PAD + node.row * (NODE_H + GAP_Y);
}

export function nodeLabel(node: { document: string; section: string | null }): string {
  return node.section ? `${node.document} ${node.section}` : node.document;
}

function shorten(text: string, max = 24): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * The followed references drawn as a graph: one column per hop, an arrow per reference. A place is a
 * button (mouse, Enter or Space): choosing it highlights the references from and to it.
 */
export function ReferenceDiagram({
  layout,
  focus,
  onFocus,
}: {
  layout: GraphLayout;
  focus: string | null;
  onFocus: (id: string | null) => void;
}) {
  const { t } = useI18n();
  const byId = new Map(layout.nodes.map((n) => [n.id, n]));
  const width = PAD * 2 + layout.columns * NODE_W + Math.max(0, layout.columns - 1) * GAP_X;
  const height = PAD * 2 + layout.rows * NODE_H + Math.max(0, layout.rows - 1) * GAP_Y;
  const choose = (id: string) => onFocus(focus === id ? null : id);
  const onKey = (event: KeyboardEvent, id: string) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      choose(id);
    }
  };
  return (
    <div className="ref-diagram" data-testid="reference-diagram">
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="group" aria-label={t("refs.title")}>
        <defs>
          <marker id="ref-arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto">
            <path d="M0,0 L8,4 L0,8 z" className="ref-arrowhead" />
          </marker>
        </defs>
        {layout.edges.map((edge) => {
          const from = byId.get(edge.from);
          const to = byId.get(edge.to);
          if (!from || !to) return null;
          const x1 = x(from) + NODE_W;
          const y1 = y(from) + NODE_H / 2;
          const x2 = x(to);
          const y2 = y(to) + NODE_H / 2;
          const bend = Math.max(24, Math.abs(x2 - x1) / 2);
          const active = focus === null || focus === edge.from || focus === edge.to;
          return (
            <path
              key={`${edge.from}|${edge.to}|${edge.mention}`}
              d={`M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`}
              className={active ? "ref-link" : "ref-link dim"}
              markerEnd="url(#ref-arrow)"
            >
              <title>{`${nodeLabel(from)} → ${nodeLabel(to)}: „${edge.mention}“ (${t("refs.depth", { n: edge.depth })})`}</title>
            </path>
          );
        })}
        {layout.nodes.map((node) => {
          const label = nodeLabel(node);
          const pressed = focus === node.id;
          return (
            <g
              key={node.id}
              role="button"
              tabIndex={0}
              aria-pressed={pressed}
              aria-label={label}
              className={pressed ? "ref-node pressed" : "ref-node"}
              onClick={() => choose(node.id)}
              onKeyDown={(event) => onKey(event, node.id)}
              transform={`translate(${x(node)},${y(node)})`}
            >
              <title>{label}</title>
              <rect width={NODE_W} height={NODE_H} rx={4} />
              <text x={8} y={NODE_H / 2} dominantBaseline="central">
                {shorten(label)}
              </text>
            </g>
          );
        })}
      </svg>
    </div>
  );
}
