import { describe, expect, it } from "vitest";
import { SimulatedPhones, type SimulatedMessage } from "../../src/providers/simulator/simulated-phones.ts";

const message = (n: number, overrides: Partial<SimulatedMessage> = {}): SimulatedMessage => ({
  id: `wamid.${n}`,
  orderId: `order-${n}`,
  merchantId: "merchant",
  reminder: null,
  phone: n % 2 ? "971500000001" : "971500000002",
  language: "en",
  text: `message ${n}`,
  buttons: { approve: "Approve", cancel: "Cancel" },
  sentAt: new Date(0).toISOString(),
  ...overrides,
});

describe("SimulatedPhones", () => {
  it("keeps the newest messages up to its capacity, oldest first, through many wrap-arounds", () => {
    const phones = new SimulatedPhones(3);
    for (let n = 1; n <= 20; n++) {
      phones.deliver(message(n));
      const kept = phones.all().map((m) => m.id);
      const first = Math.max(1, n - 2);
      expect(kept).toEqual(Array.from({ length: n - first + 1 }, (_, i) => `wamid.${first + i}`));
    }
  });

  it("forgets the order's message once it is dropped, and only then", () => {
    const phones = new SimulatedPhones(3);
    for (let n = 1; n <= 7; n++) phones.deliver(message(n));
    expect(phones.messageOf("order-4")).toBeUndefined();
    expect(phones.messageOf("order-5")?.id).toBe("wamid.5");
    expect(phones.messageOf("order-7")?.id).toBe("wamid.7");
  });

  it("keeps the first message as the order's message when a reminder follows, and the reminder's drop leaves it", () => {
    const phones = new SimulatedPhones(3);
    phones.deliver(message(1));
    phones.deliver(message(2, { orderId: "order-1", reminder: 1 }));
    expect(phones.messageOf("order-1")?.id).toBe("wamid.1");
    phones.deliver(message(3));
    phones.deliver(message(4));
    // The first message is dropped: the order has no message any more, though its reminder is still shown.
    expect(phones.messageOf("order-1")).toBeUndefined();
    expect(phones.all().map((m) => m.id)).toEqual(["wamid.2", "wamid.3", "wamid.4"]);
  });

  it("shows a phone's conversation from the kept messages only", () => {
    const phones = new SimulatedPhones(4);
    for (let n = 1; n <= 9; n++) phones.deliver(message(n));
    expect(phones.conversation("971500000001").map((m) => m.id)).toEqual(["wamid.7", "wamid.9"]);
    expect(phones.conversation("971500000002").map((m) => m.id)).toEqual(["wamid.6", "wamid.8"]);
  });

  it("emits every delivered message", () => {
    const phones = new SimulatedPhones(2);
    const seen: string[] = [];
    phones.on("message", (m: SimulatedMessage) => seen.push(m.id));
    for (let n = 1; n <= 5; n++) phones.deliver(message(n));
    expect(seen).toEqual(["wamid.1", "wamid.2", "wamid.3", "wamid.4", "wamid.5"]);
  });
});
