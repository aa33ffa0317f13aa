import { z } from "zod";
import { createOrderInput, type CreateOrderInput } from "../../domain/orders/order.schemas.ts";

/**
 * What a store order becomes on our side: an order to create (through the same path as POST /api/v1/orders), or
 * a skip with the reason the store's activity log shows (SPEC §13: `not_cod`, `no_phone`, `invalid`; `draft` for
 * checkout drafts, which are not orders yet).
 */
export type SkipReason = "not_cod" | "no_phone" | "invalid" | "draft";

export type MappedStoreOrder =
  | {
      kind: "order";
      storeOrderId: string;
      input: CreateOrderInput;
      /** The store order's own language (`en`/`ar`), when it says; else the connection's applies. */
      language: string | null;
    }
  | { kind: "skip"; storeOrderId: string | null; reason: SkipReason; detail: string | null };

/** The settings of a connection that decide whether and how a store order becomes ours. */
export interface StoreOrderSettings {
  codOnly: boolean;
  codPaymentNames: readonly string[];
}

export const skip = (storeOrderId: string | null, reason: SkipReason, detail: string | null = null): MappedStoreOrder => ({
  kind: "skip",
  storeOrderId,
  reason,
  detail,
});

/**
 * Checks the assembled input with the API's own schema, so a store order is held to exactly the rules of
 * POST /api/v1/orders; one that fails is skipped as `invalid` with the first problems named.
 */
/** A payload's `id` as a store order id (kept as text), when it has a usable one: named in an `invalid` skip. */
export function storeOrderIdOf(payload: unknown): string | null {
  const value = (payload as { id?: unknown } | null)?.id;
  return typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value)) ? String(value) : null;
}

export function finishOrder(storeOrderId: string, candidate: unknown, language: string | null): MappedStoreOrder {
  const parsed = createOrderInput.safeParse(candidate);
  if (!parsed.success) return skip(storeOrderId, "invalid", describeIssues(parsed.error));
  return { kind: "order", storeOrderId, input: parsed.data, language };
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "(body)"}: ${issue.message.replace(/^i18n:/, "")}`)
    .join("; ")
    .slice(0, 300);
}

/** A store's money value (a number, or a decimal string such as WooCommerce's "29.35") as a number, or NaN. */
export function money(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value.trim());
  return Number.NaN;
}

/** Sums money without binary drift (0.1 + 0.2): in ten-thousandths, the precision our orders keep. */
export function sumMoney(values: readonly number[]): number {
  return values.reduce((total, value) => total + Math.round(value * 10_000), 0) / 10_000;
}

/** Rounds to the 4 decimals our orders keep. */
export const round4 = (value: number) => Math.round(value * 10_000) / 10_000;

/** Trimmed, non-empty text joined by `separator`, or null. */
export function joinText(parts: readonly (string | null | undefined)[], separator: string): string | null {
  const kept = parts.map((part) => part?.trim()).filter((part): part is string => !!part);
  return kept.length ? kept.join(separator) : null;
}

/** A store's language code (`ar`, `ar_SA`, `ar-SA`, `en_US`…) as one of the languages we send, or null. */
export function supportedLanguage(value: string | null | undefined): "en" | "ar" | null {
  const base = value?.trim().toLowerCase().split(/[-_]/)[0];
  return base === "ar" || base === "en" ? base : null;
}
