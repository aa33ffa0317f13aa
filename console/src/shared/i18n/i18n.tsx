import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { ar, en, type MessageKey } from "./messages.ts";
import { formatDateTime, formatMoney, formatNumber } from "./format.ts";

export type Language = "en" | "ar";
const CATALOGUES: Record<Language, Record<MessageKey, string>> = { en, ar };
const STORAGE_KEY = "ocs.console.language";

export interface I18n {
  language: Language;
  setLanguage(language: Language): void;
  t(key: MessageKey, values?: Record<string, string | number>): string;
  dateTime(iso: string | null | undefined): string;
  money(amount: number, currency: string): string;
  number(value: number): string;
  timeZone: string;
}

const I18nContext = createContext<I18n | null>(null);

function initialLanguage(): Language {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (stored === "en" || stored === "ar") return stored;
  return navigator.language.toLowerCase().startsWith("ar") ? "ar" : "en";
}

export function I18nProvider({ children }: { children: ReactNode }) {
  const [language, setLanguageState] = useState<Language>(initialLanguage);
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

  useEffect(() => {
    // lang and dir on <html>: the whole layout mirrors through CSS logical properties.
    document.documentElement.lang = language;
    document.documentElement.dir = language === "ar" ? "rtl" : "ltr";
    document.title = CATALOGUES[language]["app.title"];
  }, [language]);

  const setLanguage = useCallback((next: Language) => {
    localStorage.setItem(STORAGE_KEY, next);
    setLanguageState(next);
  }, []);

  const value = useMemo<I18n>(() => {
    const catalogue = CATALOGUES[language];
    return {
      language,
      setLanguage,
      timeZone,
      t: (key, values) =>
        catalogue[key].replace(/\{(\w+)\}/g, (whole, name: string) => (values && name in values ? String(values[name]) : whole)),
      dateTime: (iso) => (iso ? formatDateTime(iso, language) : catalogue["common.none"]),
      money: (amount, currency) => formatMoney(amount, currency, language),
      number: (value) => formatNumber(value, language),
    };
  }, [language, setLanguage, timeZone]);

  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const context = useContext(I18nContext);
  if (!context) throw new Error("useI18n outside I18nProvider");
  return context;
}
