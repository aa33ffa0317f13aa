import { z } from "zod";
import { LATEST_INSTANT } from "../../domain/storable.ts";

/**
 * Salla webhook bodies, after the signature check: the envelope `{ event, merchant, created_at, data }` and the
 * events the connector acts on, as a closed set. Everything else is `ignored` (and answered 200: Salla retries
 * failures and would keep resending it).
 */
const merchantId = z
  .union([z.number().int().nonnegative().refine(Number.isSafeInteger), z.string().regex(/^\d{1,20}$/)])
  .transform((value) => String(value));

const envelope = z.object({
  event: z.string().min(1).max(100),
  merchant: merchantId,
  created_at: z.string().max(100).nullish(),
  data: z.unknown().optional(),
});

const authorizeData = z.object({
  access_token: z.string().min(1).max(4_000),
  refresh_token: z.string().min(1).max(4_000),
  /** Unix seconds, within what the database can store (up to 9999-12-31). */
  expires: z.number().int().positive().max(Math.floor(LATEST_INSTANT / 1000)),
  scope: z.string().max(2_000).nullish(),
  token_type: z.string().max(40).nullish(),
});

const settingsData = z.object({ settings: z.record(z.string(), z.unknown()).nullish() });

export interface SallaTokens {
  accessToken: string;
  refreshToken: string;
  expiresAt: Date;
  scope: string | null;
}

export type SallaEvent =
  | { kind: "store_authorized"; merchantId: string; tokens: SallaTokens }
  /** `linkCode` is null when the settings carry none (or an empty one). */
  | { kind: "settings_updated"; merchantId: string; linkCode: string | null }
  /** `order` is the raw `data` (map-order.ts parses it, and names what is wrong with it). */
  | { kind: "order_created"; merchantId: string; order: unknown }
  | { kind: "uninstalled"; merchantId: string }
  | { kind: "ignored"; merchantId: string | null; event: string | null; reason: string };

/** `body` is the parsed JSON of a verified delivery. */
export function parseSallaEvent(body: unknown): SallaEvent {
  const parsed = envelope.safeParse(body);
  if (!parsed.success) return { kind: "ignored", merchantId: null, event: null, reason: "not a Salla event envelope" };
  const { event, merchant, data } = parsed.data;
  switch (event) {
    case "app.store.authorize": {
      const tokens = authorizeData.safeParse(data);
      if (!tokens.success) return { kind: "ignored", merchantId: merchant, event, reason: "authorize without tokens" };
      return {
        kind: "store_authorized",
        merchantId: merchant,
        tokens: {
          accessToken: tokens.data.access_token,
          refreshToken: tokens.data.refresh_token,
          expiresAt: new Date(tokens.data.expires * 1000),
          scope: tokens.data.scope ?? null,
        },
      };
    }
    case "app.settings.updated": {
      const settings = settingsData.safeParse(data);
      const code = settings.success ? settings.data.settings?.link_code : undefined;
      return { kind: "settings_updated", merchantId: merchant, linkCode: normaliseLinkCode(code) };
    }
    case "order.created":
      return { kind: "order_created", merchantId: merchant, order: data };
    case "app.uninstalled":
      return { kind: "uninstalled", merchantId: merchant };
    default:
      return { kind: "ignored", merchantId: merchant, event, reason: "event not used" };
  }
}

/**
 * Link codes as merchants type them into Salla's settings form: case, spaces and dashes do not matter
 * ("abcd-efgh-jkmn" is ABCDEFGHJKMN). Anything that is not a plausible code is no code.
 */
export function normaliseLinkCode(value: unknown): string | null {
  if (typeof value !== "string" || value.length > 100) return null;
  const code = value.replace(/[\s-]/g, "").toUpperCase();
  return /^[A-Z0-9]{6,32}$/.test(code) ? code : null;
}
