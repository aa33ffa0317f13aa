import { z } from "zod";
import { isStorableInstant } from "../storable.ts";
import { decodeCursor } from "./order-cursor.ts";

/**
 * The create-order input and list filters, shared by REST (which also publishes them as OpenAPI) and
 * GraphQL. Bounds are SPEC §3's. Messages are catalogue keys (`i18n:`), localised by each transport.
 */
export const MAX_MONEY = 1e12;
const MONEY_DECIMALS = 4;

/** Counts decimals from the shortest round-trip text of the number, which is what the client wrote. */
export function decimalPlaces(value: number): number {
  // Every money field and quantity of an order runs through here: the plain notation (all values from 1e-7 to
  // 1e21) is read without regular expressions.
  if (Number.isInteger(value)) return 0;
  const text = String(value);
  const exponentAt = text.indexOf("e");
  if (exponentAt === -1) {
    const dot = text.indexOf(".");
    return dot === -1 ? 0 : text.length - dot - 1;
  }
  const mantissa = text.slice(0, exponentAt);
  const fraction = mantissa.split(".")[1]?.length ?? 0;
  return Math.max(0, fraction - Number(text.slice(exponentAt + 1)));
}

/** A type error message that applies only to the wrong-type case, not to the schema's other checks. */
const typeError = (kind: "string" | "number" | "array") => ({
  error: (issue: { code?: string }) => (issue.code === "invalid_type" ? `i18n:type.${kind}` : undefined),
});

/**
 * Significant digits of the shortest text of a number. JSON numbers arrive as binary doubles, which hold any
 * decimal of up to 15 significant digits exactly; beyond that (e.g. 999999999999.9997) the client's value may
 * already be lost, so such amounts are refused rather than stored altered.
 */
export function significantDigits(value: number): number {
  const text = String(Math.abs(value));
  const exponentAt = text.indexOf("e");
  const mantissa = exponentAt === -1 ? text : text.slice(0, exponentAt);
  // Digits after the leading zeros ("0.0012" has 2), the decimal point not counted.
  let digits = 0;
  let leading = true;
  for (let i = 0; i < mantissa.length; i++) {
    const char = mantissa.charCodeAt(i);
    if (char === 46 /* . */) continue;
    if (leading && char === 48 /* 0 */) continue;
    leading = false;
    digits++;
  }
  return Math.max(1, digits);
}

export const MAX_SIGNIFICANT_DIGITS = 15;

const money = z
  .number(typeError("number"))
  .min(0, { error: "i18n:number.nonnegative" })
  .max(MAX_MONEY, { error: "i18n:number.max_money" })
  .refine((value) => decimalPlaces(value) <= MONEY_DECIMALS, { error: "i18n:number.decimals", abort: true })
  .refine((value) => significantDigits(value) <= MAX_SIGNIFICANT_DIGITS, { error: "i18n:number.precision" })
  .meta({
    description: `Non-negative amount, at most ${MONEY_DECIMALS} decimals and ${MAX_SIGNIFICANT_DIGITS} significant digits, stored exactly`,
    example: 149.99,
  });

const text = (min: number, max: number) => z.string(typeError("string")).trim().min(min).max(max);

export const orderItemInput = z.object({
  productName: text(1, 200),
  variantName: text(0, 200).optional(),
  quantity: z
    .number(typeError("number"))
    .positive()
    .max(1e9)
    .refine((value) => decimalPlaces(value) <= MONEY_DECIMALS, { error: "i18n:number.decimals", abort: true })
    .refine((value) => significantDigits(value) <= MAX_SIGNIFICANT_DIGITS, { error: "i18n:number.precision" }),
  unitPrice: money,
  totalPrice: money,
});

export const createOrderInput = z
  .object({
    externalOrderId: text(1, 100).meta({ description: "Your own unique order identifier", example: "ORD-10045" }),
    customerName: text(1, 120).meta({ example: "Layla Hassan" }),
    customerPhone: z
      .string(typeError("string"))
      .trim()
      .regex(/^[1-9]\d{7,14}$/, { error: "i18n:format.phone" })
      .meta({ description: "Country code and number, 8–15 digits, no + and no leading 0", example: "966501234567" }),
    customerAddress: text(0, 500).optional(),
    subtotal: money,
    shippingCost: money,
    totalCost: money,
    currency: z
      .string(typeError("string"))
      .trim()
      // abort: a malformed code is one problem, not also "not an ISO code".
      .regex(/^[A-Za-z]{3}$/, { error: "i18n:format.currency", abort: true })
      .refine((code) => isIsoCurrency(code), { error: "i18n:format.currency" })
      .transform((code) => code.toUpperCase())
      .meta({ description: "ISO 4217 code (case-insensitive in, upper-case out)", example: "SAR" }),
    note: text(0, 1000).optional().meta({ description: "Stored, never returned in responses or events" }),
    items: z.array(orderItemInput, typeError("array")).min(1).max(100),
  })
  .meta({ id: "CreateOrder" });

export type CreateOrderInput = z.infer<typeof createOrderInput>;

// ICU's list leaves out fund codes and a few recent ISO 4217 additions.
const supportedCurrencies = new Set([
  ...Intl.supportedValuesOf("currency"),
  ...["BOV", "CHE", "CHW", "CLF", "COU", "MXV", "USN", "UYW", "VED", "XCG", "XDR", "ZWG"],
]);
function isIsoCurrency(code: string): boolean {
  return supportedCurrencies.has(code.toUpperCase());
}

export const ORDER_STATUSES = ["pending", "confirmed", "canceled", "failed", "expired"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export interface OrderFilter {
  statuses?: OrderStatus[];
  externalOrderId?: string;
  customerPhone?: string;
  createdFrom?: Date;
  createdTo?: Date;
  /** Prefix of externalOrderId, customerPhone or customerName (case-insensitive for the name); see order-search.ts. */
  search?: string;
  /** SPEC §15: only the follow-up queue (see order-follow-up-sql.ts). */
  needsFollowUp?: boolean;
  /** Orders whose latest customer message is an unclear text no merchant message answered yet (SPEC §11). */
  needsReply?: boolean;
}

/** A status filter names each status at most a few times; longer lists are refused, not sent to the database. */
export const MAX_STATUS_FILTER_ENTRIES = 20;

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/**
 * ISO 8601 date-time with a time-zone offset: REST's createdFrom/createdTo and GraphQL's DateTime scalar
 * accept exactly these.
 */
export const isoDateTime = z.iso
  .datetime({ offset: true, error: "i18n:format.datetime", abort: true })
  // Years 0000 and, with an offset, instants just outside 0001–9999 parse but PostgreSQL cannot store them.
  .refine((text) => isStorableInstant(new Date(text)), { error: "i18n:datetime.range" });

export function isIsoDateTime(value: unknown): value is string {
  return typeof value === "string" && isoDateTime.safeParse(value).success;
}

const dateTime = isoDateTime.transform((text) => new Date(text));

/** The list filters other than status (REST parses status from comma lists, GraphQL from an enum list). */
const withoutNul = (text: string) => !text.includes("\u0000");

export const MAX_SEARCH_LENGTH = 100;

export const orderListFilter = z.object({
  needsReply: z
    .union([z.boolean(), z.enum(["true", "false"]).transform((text) => text === "true")])
    .optional()
    .meta({ description: "true: only orders whose customer's latest message is an unclear text with no merchant reply after it" }),
  externalOrderId: z.string().min(1).max(100).refine(withoutNul, { error: "i18n:format.no_nul" }).optional(),
  customerPhone: z.string().regex(/^\d{1,15}$/, { error: "i18n:format.phone" }).optional(),
  createdFrom: dateTime.optional().meta({ description: "Inclusive lower bound of createdAt" }),
  createdTo: dateTime.optional().meta({ description: "Exclusive upper bound of createdAt" }),
  search: z
    .string()
    .refine(withoutNul, { error: "i18n:format.no_nul", abort: true })
    .trim()
    .min(1)
    .max(MAX_SEARCH_LENGTH)
    .optional()
    .meta({
      description:
        "Prefix (1–100 characters, trimmed) of externalOrderId or customerPhone, or of customerName ignoring case; % and _ are literal, a leading + is ignored for the phone",
    }),
});

/**
 * A page's size (REST's `limit`, GraphQL's `first`), from a number or its query-string text. The type message
 * applies to non-numbers only; 0 and 101 get the range messages.
 */
export const pageLimit = z.coerce
  .number({ error: (issue) => (issue.code === "invalid_type" ? "i18n:type.integer" : undefined) })
  .int()
  .min(1)
  .max(MAX_PAGE_SIZE)
  .default(DEFAULT_PAGE_SIZE);

/** An opaque page cursor (REST's `cursor`, GraphQL's `after`): only text that decodeCursor accepts. */
export const pageCursor = z.string().refine((text) => decodeCursor(text) !== null, { error: "i18n:format.cursor" });
