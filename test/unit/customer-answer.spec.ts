import { describe, expect, it } from "vitest";
import { APPROVE_PHRASES, CANCEL_PHRASES, normaliseAnswer, understandAnswer } from "../../src/domain/conversation/customer-answer.ts";

describe("normaliseAnswer", () => {
  it("trims, case-folds and collapses inner spaces", () => {
    expect(normaliseAnswer("  YeS  ")).toBe("yes");
    expect(normaliseAnswer("Don't   Want")).toBe("don't want");
  });

  it("removes Arabic diacritics and tatweel and unifies alef, yeh and teh marbuta", () => {
    expect(normaliseAnswer("نَعَمْ")).toBe("نعم");
    expect(normaliseAnswer("تـــمام")).toBe("تمام");
    expect(normaliseAnswer("أكيد")).toBe("اكيد");
    expect(normaliseAnswer("إلغاء")).toBe("الغاء");
    expect(normaliseAnswer("آه")).toBe("اه");
    expect(normaliseAnswer("ما ابغى")).toBe("ما ابغي");
    expect(normaliseAnswer("موافقة")).toBe("موافقه");
  });

  it("turns Arabic-Indic and Persian digits into ASCII digits", () => {
    expect(normaliseAnswer("١٢٣")).toBe("123");
    expect(normaliseAnswer("۴۵")).toBe("45");
  });

  it("strips surrounding punctuation and emoji but keeps thumbs up and down (any skin tone)", () => {
    expect(normaliseAnswer("ok!!! 😊")).toBe("ok");
    expect(normaliseAnswer("¡¿نعم؟!")).toBe("نعم");
    expect(normaliseAnswer("👍🏽")).toBe("👍");
    expect(normaliseAnswer("❤️👎")).toBe("👎");
    expect(normaliseAnswer("...")).toBe("");
  });

  it("counts a character repeated three times or more once, and keeps doubles", () => {
    expect(normaliseAnswer("yesssss")).toBe("yes");
    expect(normaliseAnswer("نعمممم")).toBe("نعم");
    expect(normaliseAnswer("okk")).toBe("okk");
    expect(normaliseAnswer("👍👍👍")).toBe("👍");
  });

  it("removes invisible direction marks and joiners", () => {
    expect(normaliseAnswer("\u200Fنعم\u200E")).toBe("نعم");
    expect(normaliseAnswer("o\u200Bk")).toBe("ok");
  });
});

describe("understandAnswer", () => {
  it.each(APPROVE_PHRASES)("approves %s", (phrase) => expect(understandAnswer(phrase)).toBe("approve"));
  it.each(CANCEL_PHRASES)("cancels %s", (phrase) => expect(understandAnswer(phrase)).toBe("cancel"));

  it("contains every phrase SPEC §11 lists", () => {
    const approve = "yes y yeah yep ok okay confirm confirmed approve approved sure 👍 نعم اي ايوه ايوا اه تمام موافق موافقه اكيد طيب ماشي اوك اوكي اكد مؤكد";
    const cancel = "no n nope cancel canceled cancelled 👎 الغاء الغي الغيه لا لأ ارفض رفض مرفوض";
    for (const phrase of approve.split(" ")) expect(understandAnswer(phrase), phrase).toBe("approve");
    for (const phrase of [...cancel.split(" "), "مش عايز", "مش عاوز", "ما ابغى", "ما ابي", "مو موافق", "غير موافق", "don't want"]) {
      expect(understandAnswer(phrase), phrase).toBe("cancel");
    }
  });

  it("understands the forms customers really type", () => {
    expect(understandAnswer("Yes!")).toBe("approve");
    expect(understandAnswer("OKAY 😊")).toBe("approve");
    expect(understandAnswer("Ok 👍🏼")).toBe("approve");
    expect(understandAnswer("نعــــم")).toBe("approve");
    expect(understandAnswer("أيوه")).toBe("approve");
    expect(understandAnswer("تماااام")).toBe("approve");
    expect(understandAnswer("إلغاء")).toBe("cancel");
    expect(understandAnswer("لأ.")).toBe("cancel");
    expect(understandAnswer("👎🏻")).toBe("cancel");
    expect(understandAnswer("مش عايزة")).toBe("cancel");
  });

  it("leaves the traps unclear", () => {
    for (const trap of [
      "لا مشكلة",
      "no problem",
      "yes but change the address",
      "نعم بس غير العنوان",
      "can you deliver tomorrow?",
      "ok تمام", // mixed scripts: two answers in one message are not a phrase of the list
      "yes no",
      "نعم لا",
      "😊",
      "❤️",
      "",
      "   ",
      "١",
      "yes".repeat(30),
      "noo", // a double is not a repeat of three
      "y e s",
      "cancel? why",
      "👍👎",
      "لا لا مش كده",
    ]) {
      expect(understandAnswer(trap), trap).toBeNull();
    }
  });

  it("never lets a phrase of one list be read as the other", () => {
    const approve = new Set(APPROVE_PHRASES.map(normaliseAnswer));
    for (const phrase of CANCEL_PHRASES) expect(approve.has(normaliseAnswer(phrase)), phrase).toBe(false);
  });
});
