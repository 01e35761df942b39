/** What other features may use of collections besides its components/ (the lint rule in eslint.config.js). */
export { useCollections } from "./api/useCollections";
