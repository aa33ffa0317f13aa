/**
 * Whether a store order's payment method is one the merchant counts as cash on delivery. WooCommerce and Salla
 * name the method by a stable id (`cod`), so the match is on the whole id, case-insensitive, after trimming:
 * `cod` never matches `cod_plus_card` or `card`. (Shopify's gateway names are free text and match by whole words,
 * in its own connector.)
 */
export function isCodPaymentMethod(method: string | null | undefined, codPaymentNames: readonly string[]): boolean {
  const id = method?.trim().toLowerCase();
  if (!id) return false;
  return codPaymentNames.some((name) => name.trim().toLowerCase() === id);
}
