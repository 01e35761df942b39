import type { PageTarget } from "../lib/target";
import { PageViewer } from "./PageViewer";

/** The viewer on any page target (a search hit, a passage, a document's page): lazily loaded by pages. */
export default function DocumentPanel({ target, onClose }: { target: PageTarget; onClose: () => void }) {
  return (
    <PageViewer
      key={`${target.collection}/${target.document}/${target.page}/${target.highlight?.start ?? ""}`}
      target={target}
      onClose={onClose}
    />
  );
}
