/**
 * What a customer's own words mean for a pending order (SPEC §11): the whole message, normalised, compared with
 * two phrase lists. Only an exact match of the whole message counts: "لا مشكلة" (no problem) starts with "لا"
 * (no) and "yes but change the address" starts with "yes", and both are questions for a person, not answers.
 * Anything not in a list is unclear and goes to the merchant.
 */

export type CustomerAnswer = "approve" | "cancel";

/** Arabic diacritics (harakat, tanwin, shadda, sukun, superscript alef, Quranic marks) and tatweel. */
const ARABIC_MARKS = /[\u0610-\u061A\u064B-\u065F\u0670\u06D6-\u06DC\u06DF-\u06E8\u06EA-\u06ED\u0640]/g;
/** Invisible characters that phones insert (direction marks, joiners, the BOM, the variation selector 16). */
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u061C\uFEFF\uFE0F\uFE0E]/g;
/** Skin-tone modifiers: 👍🏽 means 👍. */
const SKIN_TONES = /[\u{1F3FB}-\u{1F3FF}]/gu;
/**
 * What is stripped from both ends: anything that is not a letter, a digit or one of the two answer emoji
 * (punctuation of any script, symbols, other emoji, spaces).
 */
const EDGE = /^[^\p{L}\p{N}\u{1F44D}\u{1F44E}]+|[^\p{L}\p{N}\u{1F44D}\u{1F44E}]+$/gu;

/** The normal form both the message and every list entry are compared in (SPEC §11). */
export function normaliseAnswer(text: string): string {
  let value = text.normalize("NFKC").replace(INVISIBLE, "").replace(SKIN_TONES, "").toLowerCase();
  value = value
    .replace(ARABIC_MARKS, "")
    .replace(/[أإآٱ]/g, "ا")
    .replace(/ى/g, "ي")
    .replace(/ی/g, "ي") // Persian yeh, as some keyboards type it
    .replace(/ة/g, "ه")
    .replace(/[\u0660-\u0669]/g, (digit) => String(digit.charCodeAt(0) - 0x0660))
    .replace(/[\u06F0-\u06F9]/g, (digit) => String(digit.charCodeAt(0) - 0x06f0));
  value = value.replace(EDGE, "").replace(/\s+/gu, " ");
  // A character repeated three times or more counts once ("yesss", "نعمممم", "👍👍👍"); doubles are kept ("okk" stays).
  return [...value].reduce<{ out: string[]; run: number }>(
    (state, char) => {
      const previous = state.out.at(-1);
      if (previous === char) {
        state.run++;
        if (state.run === 3) {
          state.out.pop(); // the second copy goes too: the run counts once
          return state;
        }
        if (state.run > 3) return state;
      } else {
        state.run = 1;
      }
      state.out.push(char);
      return state;
    },
    { out: [], run: 0 },
  ).out.join("");
}

/**
 * Messages that approve the order (English; Modern Standard, Gulf, Levantine and Egyptian Arabic). Each entry is
 * normalised before comparing, so it is written here as people type it. Documented in docs/conversation.md.
 */
export const APPROVE_PHRASES: readonly string[] = [
  // SPEC §11's list
  "yes", "y", "yeah", "yep", "ok", "okay", "confirm", "confirmed", "approve", "approved", "sure", "👍",
  "نعم", "اي", "ايوه", "ايوا", "اه", "تمام", "موافق", "موافقه", "اكيد", "طيب", "ماشي", "اوك", "اوكي", "اكد", "مؤكد",
  // More of the same meaning
  "yes please", "yes confirm", "confirm order", "confirm it", "yup", "k", "okey", "yes sure", "sure thing",
  "اي نعم", "ايوة", "اكيد نعم", "نعم اكد", "نعم موافق", "تمام موافق", "اوكيه", "تم", "اكدو", "اكدوا", "مؤكد الطلب",
  "اكد الطلب", "موافق على الطلب", "يب", "يس", "ok 👍", "yes 👍", "okay 👍", "تمام 👍", "نعم 👍", "اوكي 👍",
];

/** Messages that cancel the order. */
export const CANCEL_PHRASES: readonly string[] = [
  // SPEC §11's list
  "no", "n", "nope", "cancel", "canceled", "cancelled", "👎", "الغاء", "الغي", "الغيه", "لا", "لأ", "ارفض", "رفض",
  "مرفوض", "مش عايز", "مش عاوز", "ما ابغى", "ما ابي", "مو موافق", "غير موافق", "don't want",
  // More of the same meaning
  "no thanks", "no thank you", "cancel order", "cancel it", "cancel the order", "please cancel", "i don't want it",
  "do not want", "dont want", "not interested", "لا شكرا", "لا شكراً", "الغاء الطلب", "الغي الطلب", "الغوا الطلب",
  "ابغى الغي", "ابي الغي", "بدي الغي", "ما بدي", "مابدي", "مابي", "ماابي", "مابغى", "ما ابغاه", "ما ابيه", "مش عايزه",
  "مش عاوزه", "مش موافق", "لا اريد", "لا ابغى", "لا ابي", "لا ما ابي", "no 👎", "لا 👎",
];

function phraseMap(): Map<string, CustomerAnswer> {
  const map = new Map<string, CustomerAnswer>();
  for (const [answer, phrases] of [["approve", APPROVE_PHRASES], ["cancel", CANCEL_PHRASES]] as const) {
    for (const phrase of phrases) {
      const key = normaliseAnswer(phrase);
      const taken = map.get(key);
      // A phrase in both lists would be a contradiction: fail at start-up, not on a customer's message.
      if (taken && taken !== answer) throw new Error(`phrase "${phrase}" is in both lists`);
      map.set(key, answer);
    }
  }
  return map;
}

const PHRASES = phraseMap();

/** Longest message worth normalising: every phrase is far shorter, so a longer one is unclear without work. */
const LONGEST_ANSWER = 64;

/** The answer a whole message gives, or null when it is unclear (a question, a remark, anything else). */
export function understandAnswer(text: string): CustomerAnswer | null {
  if (text.length > LONGEST_ANSWER) return null;
  return PHRASES.get(normaliseAnswer(text)) ?? null;
}
