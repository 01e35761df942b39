import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { de } from "./de";
import { en, type MessageKey } from "./en";

export const LANGUAGES = ["en", "de"] as const;
export type Language = (typeof LANGUAGES)[number];
const DICTIONARIES: Record<Language, Record<MessageKey, string>> = { en, de };
export const STORAGE_KEY = "rabbithole.language";

/** The stored choice, else the browser's first language we have, else English. */
export function initialLanguage(
  stored: string | null = safeStorage()?.getItem(STORAGE_KEY) ?? null,
  browser: readonly string[] = typeof navigator === "undefined" ? [] : navigator.languages ?? [navigator.language],
): Language {
  if (stored === "en" || stored === "de") return stored;
  for (const tag of browser) {
    const base = tag.toLowerCase().split("-")[0];
    if (base === "de" || base === "en") return base;
  }
  return "en";
}

function safeStorage(): Storage | null {
  try {
    return typeof localStorage === "undefined" ? null : localStorage;
  } catch {
    return null;
  }
}

export type Translate = (key: MessageKey, vars?: Record<string, string | number>) => string;

/**
 * A plural choice inside a message: `{n, plural, one {# document} other {# documents}}` picks the branch
 * the language's plural rules give for the number `n` (`=0` and the like match an exact number first);
 * `#` in the branch is the number. A branch may hold other `{placeholders}`.
 */
const PLURAL = /\{(\w+), plural,((?:\s*(?:=\d+|zero|one|two|few|many|other)\s*\{(?:[^{}]|\{\w+\})*\})+)\s*\}/g;
const BRANCH = /(=\d+|zero|one|two|few|many|other)\s*\{((?:[^{}]|\{\w+\})*)\}/g;
const PLURAL_RULES: Record<Language, Intl.PluralRules> = {
  en: new Intl.PluralRules("en"),
  de: new Intl.PluralRules("de"),
};

/** The branch for `count` (a number given as text, already formatted, takes "other"), `#` filled in. */
function choosePlural(language: Language, count: string | number, branches: string): string {
  const options = new Map([...branches.matchAll(BRANCH)].map((m) => [m[1], m[2]]));
  const category = typeof count === "number" ? PLURAL_RULES[language].select(count) : "other";
  const text = options.get(`=${count}`) ?? options.get(category) ?? options.get("other") ?? "";
  return text.replaceAll("#", String(count));
}

export function translate(language: Language, key: MessageKey, vars?: Record<string, string | number>): string {
  const template = DICTIONARIES[language][key] ?? en[key];
  if (!vars) return template;
  const chosen = template.replace(PLURAL, (match, name: string, branches: string) => {
    const count = vars[name];
    return count === undefined ? match : choosePlural(language, count, branches);
  });
  return chosen.replace(/\{(\w+)\}/g, (match, name: string) => (name in vars ? String(vars[name]) : match));
}

interface I18nValue {
  language: Language;
  setLanguage: (language: Language) => void;
  t: Translate;
  formatDate: (iso: string) => string;
  formatNumber: (value: number, digits?: number) => string;
}

const I18nContext = createContext<I18nValue | null>(null);

export function I18nProvider({ children, language: fixed }: { children: ReactNode; language?: Language }) {
  const [language, setLanguageState] = useState<Language>(() => fixed ?? initialLanguage());

  useEffect(() => {
    document.documentElement.lang = language;
  }, [language]);

  const setLanguage = useCallback((next: Language) => {
    setLanguageState(next);
    safeStorage()?.setItem(STORAGE_KEY, next);
  }, []);

  const value = useMemo<I18nValue>(() => {
    const locale = language === "de" ? "de-DE" : "en-GB";
    const dates = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" });
    return {
      language,
      setLanguage,
      t: (key, vars) => translate(language, key, vars),
      formatDate: (iso) => {
        const date = new Date(iso);
        return Number.isNaN(date.getTime()) ? iso : dates.format(date);
      },
      formatNumber: (value, digits = 0) =>
        new Intl.NumberFormat(locale, { maximumFractionDigits: digits, minimumFractionDigits: digits }).format(value),
    };
  }, [language, setLanguage]);

  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18nValue {
  const value = useContext(I18nContext);
  if (value === null) throw new Error("useI18n outside I18nProvider");
  return value;
}
