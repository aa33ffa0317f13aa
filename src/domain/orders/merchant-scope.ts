/** Whose data a call may see: one merchant, in one mode (live and test orders never mix). */
export interface MerchantScope {
  merchantId: string;
  mode: "live" | "test";
}
