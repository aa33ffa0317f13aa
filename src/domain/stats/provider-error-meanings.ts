import type { Language } from "../../i18n/messages.ts";

/**
 * What the common WhatsApp Cloud API error codes mean, as the seed contract lists them (the provider keeps the
 * authoritative list), plus the codes docs/operations.md's "What Graph errors mean" explains. Shown beside failures.
 */
const MEANINGS: Record<number, Record<Language, string>> = {
  190: { en: "Access token expired or revoked", ar: "انتهت صلاحية رمز الوصول أو أُلغي" },
  131026: {
    en: "Message undeliverable (recipient not on WhatsApp, or device offline)",
    ar: "تعذّر تسليم الرسالة (المستلم ليس على واتساب أو جهازه غير متصل)",
  },
  131030: {
    en: "Recipient phone number not in the allowed list (test mode only)",
    ar: "رقم المستلم ليس في القائمة المسموح بها (وضع الاختبار فقط)",
  },
  131042: { en: "Business eligibility or payment problem", ar: "مشكلة في أهلية النشاط التجاري أو الدفع" },
  131045: { en: "Template not approved, or the number's registration is broken", ar: "القالب غير معتمد أو تسجيل الرقم معطّل" },
  131047: { en: "Re-engagement window (24 hours) expired", ar: "انتهت نافذة إعادة التواصل (24 ساعة)" },
  131048: { en: "Spam rate limit reached", ar: "تم بلوغ حد الرسائل المزعجة" },
  131049: { en: "User has stopped marketing messages", ar: "أوقف المستخدم الرسائل التسويقية" },
  131056: { en: "Pair rate limit: too many messages to the same recipient", ar: "رسائل كثيرة جدًا إلى المستلم نفسه" },
  132000: { en: "Template parameter count mismatch", ar: "عدد معاملات القالب غير مطابق" },
  132001: { en: "Template does not exist (deleted or wrong language)", ar: "القالب غير موجود (محذوف أو بلغة خاطئة)" },
  132005: { en: "Translated text too long", ar: "النص المترجم طويل جدًا" },
  132007: { en: "Template format character policy violated", ar: "مخالفة سياسة أحرف تنسيق القالب" },
  132012: { en: "Template parameter format mismatch", ar: "تنسيق معاملات القالب غير مطابق" },
  132015: { en: "Template paused due to quality drop", ar: "القالب موقوف مؤقتًا بسبب انخفاض الجودة" },
  132016: { en: "Template disabled", ar: "القالب معطّل" },
  133010: { en: "Phone number not registered", ar: "رقم الهاتف غير مسجّل" },
};

const NO_CODE: Record<Language, string> = {
  en: "Failed before reaching the provider (no error code)",
  ar: "فشل قبل الوصول إلى مزوّد الرسائل (بلا رمز خطأ)",
};

/** The meaning of `errorCode` in `language`; null for a code not in the list. */
export function providerErrorMeaning(errorCode: number | null, language: Language): string | null {
  if (errorCode === null) return NO_CODE[language];
  return MEANINGS[errorCode]?.[language] ?? null;
}
