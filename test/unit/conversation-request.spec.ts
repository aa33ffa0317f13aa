import { describe, expect, it } from "vitest";
import { rowTitle, windowOf } from "../../src/domain/conversation/conversation.service.ts";
import { buildConversationRequest, buildMarkReadRequest } from "../../src/providers/whatsapp/conversation-request.ts";

const base = { orderId: "01a21424-1ecf-761a-86df-2792bdc924bc", merchantId: "m", customerPhone: "966501234567", language: "en" as const };

describe("Meta's free-form message bodies", () => {
  it("a text quoting the customer's message, cut to 4,096 characters", () => {
    const body = buildConversationRequest({ ...base, replyTo: "wamid.IN", content: { type: "text", body: "x".repeat(5000) } });
    expect(body).toMatchObject({ messaging_product: "whatsapp", recipient_type: "individual", to: "+966501234567", type: "text", context: { message_id: "wamid.IN" } });
    expect([...(body as any).text.body]).toHaveLength(4096);
    // Never `order=`: a status of this message must not be taken for the confirmation's.
    expect((body as any).biz_opaque_callback_data).not.toMatch(/(^|;)order=/);
  });

  it("reply buttons: at most 3, titles in 20 characters", () => {
    const body: any = buildConversationRequest({
      ...base,
      replyTo: null,
      content: { type: "buttons", body: "Please tap", buttons: [{ id: "APPROVE:1", title: "A very long approve title indeed" }, { id: "CANCEL:1", title: "Cancel" }] },
    });
    expect(body.context).toBeUndefined();
    expect(body.interactive.type).toBe("button");
    expect(body.interactive.action.buttons.map((button: any) => button.reply)).toEqual([
      { id: "APPROVE:1", title: "A very long approve…" },
      { id: "CANCEL:1", title: "Cancel" },
    ]);
  });

  it("a list: 10 rows at most, titles 24, descriptions 72, button 20", () => {
    const rows = Array.from({ length: 12 }, (_, index) => ({ id: `ORDER:${index}`, title: "t".repeat(30), description: "d".repeat(80) }));
    const body: any = buildConversationRequest({ ...base, replyTo: null, content: { type: "list", body: "Which order do you mean?", button: "Choose the order please", rows } });
    const sent = body.interactive.action.sections[0].rows;
    expect(sent).toHaveLength(10);
    for (const row of sent) {
      expect([...row.title].length).toBeLessThanOrEqual(24);
      expect([...row.description].length).toBeLessThanOrEqual(72);
    }
    expect([...body.interactive.action.button].length).toBeLessThanOrEqual(20);
  });

  it("mark as read", () => {
    expect(buildMarkReadRequest("wamid.X")).toEqual({ messaging_product: "whatsapp", status: "read", message_id: "wamid.X" });
  });
});

describe("rowTitle", () => {
  it("keeps the order reference whole and shortens the merchant's name, in 24 characters", () => {
    expect(rowTitle("Shop", "ORD-1")).toBe("Shop ORD-1");
    expect(rowTitle("Dates Market of Riyadh", "ORD-6b28553f")).toBe("Dates Mark… ORD-6b28553f");
    expect([...rowTitle("متجر التمور الفاخرة في الرياض", "ORD-1")].length).toBeLessThanOrEqual(24);
    expect(rowTitle("Shop", "X".repeat(40))).toBe(`…${"X".repeat(21)}`);
  });
});

describe("the 24-hour window", () => {
  const now = new Date("2026-11-25T12:00:00.000Z");
  it("is closed before the customer writes, open for 24 h after, closed after", () => {
    expect(windowOf(null, now)).toEqual({ open: false, closesAt: null, lastCustomerMessageAt: null });
    expect(windowOf(new Date("2026-11-24T12:00:01.000Z"), now)).toMatchObject({ open: true, closesAt: "2026-11-25T12:00:01.000Z" });
    expect(windowOf(new Date("2026-11-24T12:00:00.000Z"), now).open).toBe(false);
  });
});
