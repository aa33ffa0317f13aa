/** Numbers, money and dates through Intl in the chosen language (Latin digits in both, as merchants type them). */
export const intlLocale = (language: string): string => (language === "ar" ? "ar-u-nu-latn" : "en-GB");

export function formatDateTime(iso: string, language: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(intlLocale(language), { dateStyle: "medium", timeStyle: "medium" }).format(date);
}

export function formatMoney(amount: number, currency: string, language: string): string {
  try {
    return new Intl.NumberFormat(intlLocale(language), { style: "currency", currency, maximumFractionDigits: 4 }).format(amount);
  } catch {
    // An ISO code Intl does not know still shows the amount.
    return `${formatNumber(amount, language)} ${currency}`;
  }
}

export function formatNumber(value: number, language: string): string {
  return new Intl.NumberFormat(intlLocale(language), { maximumFractionDigits: 4 }).format(value);
}
