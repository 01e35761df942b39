import type { ReferenceFollowed } from "../events/types";

export interface GraphNode {
  id: string;
  document: string;
  section: string | null;
  column: number;
  row: number;
}

export interface GraphEdge {
  from: string;
  to: string;
  mention: string;
  depth: number;
  count: number;
}

export interface GraphLayout {
  nodes: GraphNode[];
  edges: GraphEdge[];
  columns: number;
  rows: number;
}

export function placeId(place: { document: string; section?: string | null }): string {
  return `${place.document}\u0000${place.section ?? ""}`;
}

/**
 * Places the followed references in columns by hop: a reference of depth d leads from column d-1 to
 * column d; a place reached at several depths stands in its lowest column. Rows follow first appearance,
 * so a live graph only grows downwards and nothing already drawn jumps.
 */
export function layoutReferences(references: ReferenceFollowed[]): GraphLayout {
  const column = new Map<string, number>();
  const info = new Map<string, { document: string; section: string | null }>();
  const order: string[] = [];
  const edges = new Map<string, GraphEdge>();
  const note = (place: { document: string; section?: string | null }, at: number) => {
    const id = placeId(place);
    if (!info.has(id)) {
      info.set(id, { document: place.document, section: place.section ?? null });
      order.push(id);
    }
    column.set(id, Math.min(column.get(id) ?? at, at));
    return id;
  };
  for (const ref of references) {
    const depth = Math.max(1, ref.depth);
    const from = note(ref.from, depth - 1);
    const to = note(ref.to, depth);
    const key = `${from}\u0001${to}\u0001${ref.mention}`;
    const edge = edges.get(key);
    if (edge) edge.count += 1;
    else edges.set(key, { from, to, mention: ref.mention, depth: ref.depth, count: 1 });
  }
  const rowsUsed = new Map<number, number>();
  const nodes = order.map((id) => {
    const col = column.get(id) ?? 0;
    const row = rowsUsed.get(col) ?? 0;
    rowsUsed.set(col, row + 1);
    const place = info.get(id) ?? { document: "", section: null };
    return { id, document: place.document, section: place.section, column: col, row };
  });
  return {
    nodes,
    edges: [...edges.values()],
    columns: Math.max(0, ...nodes.map((n) => n.column + 1)),
    rows: Math.max(0, ...rowsUsed.values()),
  };
}
