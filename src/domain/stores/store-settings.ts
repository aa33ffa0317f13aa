import { z } from "zod";

/**
 * A store connection's settings (SPEC §13): what counts as cash on delivery, which tags go back to the store for
 * each outcome, whether we cancel the store order or hold its fulfillment. Stored as JSON on the connection;
 * every read goes through `readSettings`, so a row written by an older version gets today's defaults.
 */
export interface StoreSettings {
  codOnly: boolean;
  codPaymentNames: string[];
  tagConfirmed: string | null;
  tagCanceled: string | null;
  tagExpired: string | null;
  tagFailed: string | null;
  cancelOnCustomerCancel: boolean;
  cancelOnExpiry: boolean;
  holdFulfillmentUntilConfirmed: boolean;
  language: "en" | "ar";
}

export const SHOPIFY_COD_NAMES = ["Cash on Delivery (COD)", "cash on delivery", "COD"];

export function defaultSettings(platform: "shopify" | "woocommerce" | "salla"): StoreSettings {
  return {
    codOnly: true,
    codPaymentNames: platform === "shopify" ? [...SHOPIFY_COD_NAMES] : ["cod"],
    tagConfirmed: "cod-confirmed",
    tagCanceled: "cod-canceled",
    tagExpired: "cod-unconfirmed",
    tagFailed: "cod-undeliverable",
    cancelOnCustomerCancel: false,
    cancelOnExpiry: false,
    holdFulfillmentUntilConfirmed: false,
    language: "en",
  };
}

/** Shopify tags: at most 40 characters, no commas (a comma separates tags). */
const tag = z
  .string()
  .trim()
  .max(40, { error: "i18n:store.tag" })
  .refine((value) => !value.includes(","), { error: "i18n:store.tag" })
  .nullable()
  .transform((value) => (value ? value : null));

/** The input of `updateStoreConnection`: every field optional, absent ones keep their value. */
export const storeSettingsInput = z
  .object({
    codOnly: z.boolean(),
    codPaymentNames: z.array(z.string().trim().min(1).max(100)).min(1).max(20),
    tagConfirmed: tag,
    tagCanceled: tag,
    tagExpired: tag,
    tagFailed: tag,
    cancelOnCustomerCancel: z.boolean(),
    cancelOnExpiry: z.boolean(),
    holdFulfillmentUntilConfirmed: z.boolean(),
    language: z.enum(["en", "ar"]),
  })
  .partial()
  .strict();

export type StoreSettingsInput = z.infer<typeof storeSettingsInput>;

export function readSettings(platform: "shopify" | "woocommerce" | "salla", stored: unknown): StoreSettings {
  const defaults = defaultSettings(platform);
  const parsed = storeSettingsInput.safeParse(stored ?? {});
  // Unknown or broken fields fall back one by one rather than making the connection unreadable.
  if (parsed.success) return { ...defaults, ...parsed.data };
  const merged: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries((stored ?? {}) as Record<string, unknown>)) {
    const field = storeSettingsInput.shape[key as keyof typeof storeSettingsInput.shape];
    if (field && field.safeParse(value).success) merged[key] = field.parse(value);
  }
  return merged as unknown as StoreSettings;
}

/**
 * Whether one of the order's payment gateway names matches a COD name: case-insensitive, on whole words (so
 * "COD" matches "COD" and "Pay by COD", never "Barcode Pay").
 */
export function isCashOnDelivery(gatewayNames: readonly string[], codNames: readonly string[]): boolean {
  const words = (text: string) => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  return gatewayNames.some((gateway) => {
    const haystack = words(gateway);
    return codNames.some((name) => {
      const needle = words(name);
      if (needle.length === 0 || needle.length > haystack.length) return false;
      for (let start = 0; start + needle.length <= haystack.length; start++) {
        if (needle.every((word, index) => haystack[start + index] === word)) return true;
      }
      return false;
    });
  });
}
