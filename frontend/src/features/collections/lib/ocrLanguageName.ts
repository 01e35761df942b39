/**
 * A Tesseract language code in words, in the interface's language: "deu" → "German (deu)" or "Deutsch (deu)";
 * a code with a variant ("chi_sim", "deu_latf") is named by its language; one Intl does not know stays as it is.
 */
export function ocrLanguageName(code: string, locale: string): string {
  const base = code.split("_")[0] ?? code;
  try {
    const name = new Intl.DisplayNames([locale], { type: "language" }).of(base);
    if (name !== undefined && name !== base) return `${name} (${code})`;
  } catch {
    // not a language code Intl knows: the code itself
  }
  return code;
}

/** Languages in words, joined: "German (deu), English (eng)". */
export function ocrLanguageNames(codes: readonly string[], locale: string): string {
  return codes.map((code) => ocrLanguageName(code, locale)).join(", ");
}
