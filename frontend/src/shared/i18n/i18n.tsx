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

export function translate(language: Language, key: MessageKey, vars?: Record<string, string | number>): string {
  const template = DICTIONARIES[language][key] ?? en[key];
  if (!vars) return template;
  return template.replace(/\{(\w+)\}/g, (match, name: string) =>
    name in vars ? String(vars[name]) : match,
  );
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
