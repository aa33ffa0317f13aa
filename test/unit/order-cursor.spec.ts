import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "../../src/domain/orders/order-cursor.ts";

const id = "0192f3a4-5b6c-7d8e-9f00-112233445566";
const createdAt = new Date("2026-01-31T12:34:56.789Z");

describe("order cursor", () => {
  it("round-trips (createdAt, id) through an opaque url-safe string", () => {
    const cursor = encodeCursor({ createdAt, id });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain(id);
    expect(decodeCursor(cursor)).toEqual({ createdAt, id });
  });

  it("keeps millisecond precision", () => {
    const at = new Date("2026-01-31T12:34:56.001Z");
    expect(decodeCursor(encodeCursor({ createdAt: at, id }))?.createdAt.getTime()).toBe(at.getTime());
  });

  const encode = (text: string) => Buffer.from(text, "utf8").toString("base64url");

  it.each([
    ["empty", ""],
    ["not base64url", "!!!"],
    ["padding", `${encode(`${createdAt.toISOString()}|${id}`)}=`],
    ["random text", "abc"],
    ["too long", "A".repeat(201)],
    ["no separator", encode(createdAt.toISOString())],
    ["id not a uuid", encode(`${createdAt.toISOString()}|not-a-uuid`)],
    ["extra part", encode(`${createdAt.toISOString()}|${id}|x`)],
    ["not a date", encode(`yesterday|${id}`)],
    ["non-canonical date", encode(`2026-01-31T12:34:56Z|${id}`)],
    ["date with offset", encode(`2026-01-31T15:34:56.789+03:00|${id}`)],
    ["empty id", encode(`${createdAt.toISOString()}|`)],
  ])("rejects %s", (_name, text) => {
    expect(decodeCursor(text)).toBeNull();
  });

  it("rejects a cursor with one character changed", () => {
    const cursor = encodeCursor({ createdAt, id });
    const tampered = (cursor[0] === "A" ? "B" : "A") + cursor.slice(1);
    expect(decodeCursor(tampered)).toBeNull();
  });
});
