/** What the server takes as a collection name: 1–60 letters, digits, "-", "_" or ".". */
export const COLLECTION_NAME = /^[A-Za-z0-9_.-]{1,60}$/;
export const MAX_COLLECTION_NAME = 60;

const SPELLED_OUT: Record<string, string> = { ä: "ae", ö: "oe", ü: "ue", ß: "ss", æ: "ae", œ: "oe", ø: "o", đ: "d", ł: "l" };

/**
 * The collection name made from what the user typed: a valid name as it is; anything else in lower case,
 * umlauts and ß spelled out ("Meine Akte" → "meine-akte", "Straße" → "strasse"), other accents dropped, every
 * run of other characters one "-", no "-", "_" or "." at either end, at most 60 characters. Empty when
 * nothing usable is left (only punctuation, or a script without Latin letters).
 */
export function deriveCollectionName(input: string): string {
  const typed = input.trim();
  if (COLLECTION_NAME.test(typed)) return typed;
  const latin = [...typed.toLowerCase()]
    .map((char) => SPELLED_OUT[char] ?? char)
    .join("")
    .normalize("NFD")
    .replace(/\p{M}+/gu, "");
  const dashed = latin.replace(/[^a-z0-9_.-]+/g, "-").replace(/-{2,}/g, "-");
  return trimEnds(trimEnds(dashed).slice(0, MAX_COLLECTION_NAME));
}

function trimEnds(name: string): string {
  return name.replace(/^[-_.]+|[-_.]+$/g, "");
}
