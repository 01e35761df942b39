import type { Source } from "../../../api/generated/types.gen";
import { sourceTarget } from "../lib/target";
import { PageViewer } from "./PageViewer";

/** The viewer a citation [n] opens: its page with the quote highlighted, its support and reference chain. */
export default function CitationViewer({ source, onClose }: { source: Source; onClose: () => void }) {
  return <PageViewer key={`${source.n}`} target={sourceTarget(source)} onClose={onClose} />;
}
