import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TRANSIENT_GRAPH_CODES, classifyResponse, failureReasonOf, parseGraphError } from "../../src/providers/whatsapp/graph-errors.ts";

const fixture = (name: string) => JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../fixtures/whatsapp", `${name}.json`), "utf8"));
const graphError = (code: number, extra: Record<string, unknown> = {}) => ({ error: { message: `(#${code}) Something`, type: "OAuthException", code, ...extra } });

describe("parseGraphError / failureReasonOf", () => {
  it("reads Meta's fixtures", () => {
    expect(parseGraphError(fixture("send-error-131030-response"))).toEqual({
      code: 131030,
      message: "(#131030) Recipient phone number not in allowed list",
      title: null,
      details: "Recipient phone number not in allowed list: Add recipient phone number to recipient list and try again.",
    });
    // 190 has no error_data.
    expect(parseGraphError(fixture("send-error-190-token-expired-response"))).toMatchObject({ code: 190, details: null });
  });

  it("message, else error_user_title, else 'Unknown failure'", () => {
    expect(failureReasonOf(parseGraphError(graphError(100, { message: "(#100) Invalid parameter", error_user_title: "Bad" })))).toBe("(#100) Invalid parameter");
    expect(failureReasonOf(parseGraphError({ error: { code: 100, message: "  ", error_user_title: "Bad parameter" } }))).toBe("Bad parameter");
    expect(failureReasonOf(parseGraphError({ error: { code: 100 } }))).toBe("Unknown failure");
    expect(failureReasonOf(null)).toBe("Unknown failure");
  });

  it("anything that is not a Graph error is null", () => {
    for (const body of [null, "text", 42, {}, { error: "nope" }, { error: { message: "no code" } }, { error: { code: "abc" } }]) {
      expect(parseGraphError(body)).toBeNull();
    }
  });
});

describe("classifyResponse", () => {
  it("200 with messages[0].id is accepted with the wamid", () => {
    expect(classifyResponse(200, fixture("send-success-response"))).toEqual({
      kind: "accepted",
      providerMessageId: "wamid.HBgMNDQ3NzAwOTAwMTIzFQIAERgSMEEzRjlDMkU3QjFENDRBOEI2AA==",
    });
  });

  it("200 without a wamid is an unknown outcome (never resent: the message may have gone out)", () => {
    expect(classifyResponse(200, { messaging_product: "whatsapp" }).kind).toBe("unknown");
    expect(classifyResponse(200, null).kind).toBe("unknown");
  });

  it.each([1, 2, 4, 80007, 130429, 131000, 133004])("Graph code %i is transient whatever the 4xx status", (code) => {
    expect(TRANSIENT_GRAPH_CODES.has(code)).toBe(true);
    expect(classifyResponse(400, graphError(code))).toMatchObject({ kind: "transient", error: { code } });
  });

  it.each([
    [400, "send-error-131030-response", 131030],
    [404, "send-error-132001-response", 132001],
    [401, "send-error-190-token-expired-response", 190],
  ])("HTTP %i %s is a rejection with code %i", (status, name, code) => {
    expect(classifyResponse(status, fixture(name))).toMatchObject({ kind: "rejected", error: { code } });
  });

  it.each([100, 131026, 131045, 131047, 131048, 131056, 132000, 132015, 132016, 368])("Graph code %i at HTTP 400 is a rejection", (code) => {
    expect(classifyResponse(400, graphError(code)).kind).toBe("rejected");
  });

  it("the Graph code decides, whatever the HTTP status; a 5xx without a Graph body is transient", () => {
    expect(classifyResponse(500, fixture("send-error-131000-response"))).toMatchObject({ kind: "transient", error: { code: 131000 } });
    expect(classifyResponse(503, null)).toMatchObject({ kind: "transient", error: null });
    expect(classifyResponse(500, graphError(131045))).toMatchObject({ kind: "rejected", error: { code: 131045 } });
    expect(classifyResponse(503, graphError(2))).toMatchObject({ kind: "transient", error: { code: 2 } });
  });

  it("a 4xx without a Graph body: 429 is transient, anything else a rejection without a code", () => {
    expect(classifyResponse(429, null)).toMatchObject({ kind: "transient", error: null });
    expect(classifyResponse(404, null)).toMatchObject({ kind: "rejected", error: null });
  });
});
