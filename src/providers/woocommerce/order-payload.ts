import { z } from "zod";

/**
 * The order of a WooCommerce `order.created` webhook (REST API v3 order schema; webhooks created with API
 * version wp_api_v3). Only what the mapping reads is declared; everything else in the payload is ignored. Money
 * is decimal text ("29.35"), ids are integers: they are kept as strings from here on (SPEC §13).
 */
const text = z.string().max(2_000).nullish();
const id = z
  .union([z.number().int().nonnegative().refine(Number.isSafeInteger), z.string().regex(/^\d{1,20}$/)])
  .transform((value) => String(value));
const amount = z.union([z.string().max(40), z.number()]).nullish();

const address = z
  .object({
    first_name: text,
    last_name: text,
    company: text,
    address_1: text,
    address_2: text,
    city: text,
    state: text,
    postcode: text,
    country: text,
    phone: text,
  })
  .nullish();

const metaEntry = z.object({
  key: z.string().max(255).nullish(),
  value: z.unknown().optional(),
  display_key: text,
  display_value: z.unknown().optional(),
});

export const wooCommerceLineItem = z.object({
  name: z.string().max(2_000).nullish(),
  quantity: z.number(),
  subtotal: amount,
  total: amount,
  price: z.number().nullish(),
  meta_data: z.array(metaEntry).max(200).nullish(),
});

export const wooCommerceOrder = z.object({
  id,
  status: z.string().max(60),
  currency: z.string().max(10).nullish(),
  total: amount,
  shipping_total: amount,
  payment_method: z.string().max(200).nullish(),
  payment_method_title: text,
  customer_note: text,
  billing: address,
  shipping: address,
  line_items: z.array(wooCommerceLineItem).max(500),
  meta_data: z.array(metaEntry).max(500).nullish(),
});

export type WooCommerceOrder = z.infer<typeof wooCommerceOrder>;
export type WooCommerceLineItem = z.infer<typeof wooCommerceLineItem>;
export type WooCommerceAddress = NonNullable<WooCommerceOrder["billing"]>;

/** Order statuses that are not orders yet: the block checkout's drafts (SPEC §13), and WordPress's own drafts. */
export const DRAFT_STATUSES: ReadonlySet<string> = new Set(["checkout-draft", "auto-draft", "draft"]);
