/**
 * The viewer's public surface for other features: what it opens (a page target) and how a citation, a search
 * hit, a passage or a graph node becomes one. The components are loaded lazily by path
 * (components/CitationViewer, components/DocumentPanel), so importing this module pulls in no pdf.js.
 */
export {
  passageTarget,
  placeTarget,
  searchHitTarget,
  sourceTarget,
  targetFromParams,
  targetParams,
  type ChainLink,
  type PageTarget,
} from "./lib/target";
