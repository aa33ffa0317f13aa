import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { hasValidTwilioSignature, twilioSignature } from "../../src/providers/twilio/twilio-signature.ts";
import { TwilioSmsProvider } from "../../src/providers/twilio/twilio-sms.provider.ts";
import { FakeTwilio, TEST_TWILIO_FROM, TEST_TWILIO_SID, TEST_TWILIO_TOKEN, twilioReply } from "../support/fake-twilio.ts";

describe("X-Twilio-Signature", () => {
  // Twilio's published example ("Validating requests", twilio-php's validation guide): auth token 12345, this URL
  // and these POST parameters are signed RSOYDt4T1cUTdK1PDd93/VVr8B8=.
  const url = "https://mycompany.com/myapp.php?foo=1&bar=2";
  const params: [string, string][] = [
    ["CallSid", "CA1234567890ABCDE"],
    ["Caller", "+14158675309"],
    ["Digits", "1234"],
    ["From", "+14158675309"],
    ["To", "+18005551212"],
  ];

  it("matches Twilio's published example", () => {
    expect(twilioSignature("12345", url, params)).toBe("RSOYDt4T1cUTdK1PDd93/VVr8B8=");
    // Parameter order on the wire does not matter: they are sorted by name.
    expect(twilioSignature("12345", url, [...params].reverse())).toBe("RSOYDt4T1cUTdK1PDd93/VVr8B8=");
    expect(hasValidTwilioSignature("12345", url, params, "RSOYDt4T1cUTdK1PDd93/VVr8B8=")).toBe(true);
  });

  it("refuses another token, URL, parameter value, a missing or malformed header", () => {
    expect(hasValidTwilioSignature("54321", url, params, "RSOYDt4T1cUTdK1PDd93/VVr8B8=")).toBe(false);
    expect(hasValidTwilioSignature("12345", "https://mycompany.com/myapp.php?foo=1&bar=3", params, "RSOYDt4T1cUTdK1PDd93/VVr8B8=")).toBe(false);
    const changed = params.map(([name, value]): [string, string] => [name, name === "Digits" ? "9999" : value]);
    expect(hasValidTwilioSignature("12345", url, changed, "RSOYDt4T1cUTdK1PDd93/VVr8B8=")).toBe(false);
    expect(hasValidTwilioSignature("12345", url, [...params, ["Extra", "1"]], "RSOYDt4T1cUTdK1PDd93/VVr8B8=")).toBe(false);
    for (const header of [undefined, "", "RSOYDt4T1cUTdK1PDd93/VVr8B8", "sha1=RSOYDt4T1cUTdK1PDd93/VVr8B8=", "x".repeat(28)]) {
      expect(hasValidTwilioSignature("12345", url, params, header)).toBe(false);
    }
  });
});

describe("TwilioSmsProvider against the fake Twilio", () => {
  let fake: FakeTwilio;
  const provider = (overrides: Partial<ConstructorParameters<typeof TwilioSmsProvider>[0]> = {}) =>
    new TwilioSmsProvider(
      {
        apiUrl: fake.url,
        accountSid: TEST_TWILIO_SID,
        authToken: TEST_TWILIO_TOKEN,
        from: TEST_TWILIO_FROM,
        statusCallbackUrl: () => "https://confirm.example.com/webhooks/twilio",
        timeoutMs: 300,
        ...overrides,
      },
      { maxAttempts: 3, budgetMs: 3000, backoffMs: () => 10 },
    );
  const message = { smsId: "s", orderId: "o", merchantId: "m", to: "966501234567", body: "Dates Shop: confirm ORD-1 https://x/c/t", language: "en" as const, reminder: null };

  beforeAll(async () => {
    fake = await FakeTwilio.start();
  });
  beforeEach(() => fake.reset());
  afterAll(() => fake?.close());

  it("sends form-encoded with basic auth, From, Body and the StatusCallback", async () => {
    const result = await provider().sendSms(message);
    expect(result).toMatchObject({ outcome: "accepted", providerMessageId: expect.stringMatching(/^SM[0-9a-f]{32}$/) });
    const [request] = fake.requests;
    expect(request.path).toBe(`/2010-04-01/Accounts/${TEST_TWILIO_SID}/Messages.json`);
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(request.form)).toEqual({
      To: "+966501234567",
      From: TEST_TWILIO_FROM,
      Body: message.body,
      StatusCallback: "https://confirm.example.com/webhooks/twilio",
    });
  });

  it("uses MessagingServiceSid for an MG sender", async () => {
    const sid = `MG${"a".repeat(32)}`;
    await provider({ from: sid }).sendSms(message);
    expect(fake.requests[0].form.get("MessagingServiceSid")).toBe(sid);
    expect(fake.requests[0].form.has("From")).toBe(false);
  });

  it("retries 5xx, 429 and timeouts within the bound, then succeeds", async () => {
    fake.next(twilioReply.serverError(), twilioReply.tooManyRequests());
    expect((await provider().sendSms(message)).outcome).toBe("accepted");
    expect(fake.requests).toHaveLength(3);
    fake.reset();
    fake.next(twilioReply.hang());
    expect((await provider().sendSms(message)).outcome).toBe("accepted");
    expect(fake.requests).toHaveLength(2);
  });

  it("gives up after three transient failures (unavailable, with Twilio's code)", async () => {
    fake.next(twilioReply.serverError(), twilioReply.serverError(), twilioReply.serverError(), twilioReply.created());
    const result = await provider().sendSms(message);
    expect(result).toMatchObject({ outcome: "unavailable", errorCode: 20500, failureReason: "An internal server error has occurred" });
    expect(fake.requests).toHaveLength(3);
  });

  it("a 4xx is final: rejected with Twilio's code and message, never retried", async () => {
    fake.next(twilioReply.invalidTo());
    expect(await provider().sendSms(message)).toEqual({ outcome: "rejected", errorCode: 21211, failureReason: "The 'To' number is not a valid phone number." });
    expect(fake.requests).toHaveLength(1);
    const wrongToken = await provider({ authToken: "wrong" }).sendSms(message);
    expect(wrongToken).toMatchObject({ outcome: "rejected", errorCode: 20003 });
  });
});
