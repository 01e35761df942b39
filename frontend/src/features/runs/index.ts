/** What the app and other features may use of runs besides its components/ (the rule in eslint.config.js). */
export { useRunListEvents } from "./api/useRunListEvents";
