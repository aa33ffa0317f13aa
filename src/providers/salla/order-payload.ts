import { z } from "zod";

/**
 * The `data` of a Salla `order.created` webhook (the Order model of Salla's webhook docs). Only what the mapping
 * reads is declared, leniently (Salla sends amounts as numbers or decimal text, phones as digits with or without a
 * code, and adds fields over time); the rest of the payload is ignored. The id is kept as a string (SPEC §13).
 */
const text = z.string().max(2_000).nullish();
const id = z
  .union([z.number().int().nonnegative().refine(Number.isSafeInteger), z.string().regex(/^\d{1,20}$/)])
  .transform((value) => String(value));
const numberish = z.union([z.number(), z.string().max(40)]);
const money = z.object({ amount: numberish.nullish(), currency: z.string().max(10).nullish() }).nullish();
const phone = z.union([z.string().max(40), z.number()]).nullish();

const address = z
  .object({
    country: text,
    country_code: text,
    city: text,
    shipping_address: text,
    street_number: text,
    block: text,
    postal_code: text,
  })
  .nullish();

const option = z.object({
  name: text,
  value: z.union([z.string().max(500), z.number(), z.object({ name: text }).passthrough()]).nullish(),
});

export const sallaOrderItem = z.object({
  name: z.string().max(2_000).nullish(),
  quantity: z.number(),
  amounts: z
    .object({
      price_without_tax: money,
      total: money,
    })
    .nullish(),
  price: money,
  options: z.array(option).max(100).nullish(),
});

export const sallaOrder = z.object({
  id,
  reference_id: z.union([z.number(), z.string().max(40)]).nullish(),
  draft: z.boolean().nullish(),
  payment_method: z.string().max(200).nullish(),
  currency: z.string().max(10).nullish(),
  amounts: z.object({
    sub_total: money,
    shipping_cost: money,
    total: money,
  }),
  customer: z
    .object({
      first_name: text,
      last_name: text,
      mobile: phone,
      mobile_code: z.union([z.string().max(10), z.number()]).nullish(),
      country: text,
      country_code: text,
    })
    .nullish(),
  shipping: z
    .object({
      receiver: z.object({ name: text, phone }).nullish(),
      address,
    })
    .nullish(),
  items: z.array(sallaOrderItem).max(500),
  language: text,
});

export type SallaOrder = z.infer<typeof sallaOrder>;
export type SallaOrderItem = z.infer<typeof sallaOrderItem>;
