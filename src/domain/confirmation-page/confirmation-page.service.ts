import type { PublicUrls } from "../public-urls.ts";
import type { MerchantScope } from "../orders/order.repository.ts";
import type { OrderService } from "../orders/order.service.ts";
import type { ConfirmationPageRepository, PageOrder } from "./confirmation-page.repository.ts";
import type { PageTokens } from "./page-token.ts";

/** What a POST of the page did. */
export type PageAnswer = "applied" | "already_answered" | "not_found";

/**
 * The customer's confirmation page (SPEC §12): its link for merchants, what it shows, and its answer, which is
 * the customer's tap (the same state change through OrderService, timeline source `customer`, `via: "page"`).
 */
export class ConfirmationPageService {
  constructor(
    private readonly tokens: PageTokens,
    private readonly pages: ConfirmationPageRepository,
    private readonly orders: OrderService,
    private readonly urls: PublicUrls,
  ) {}

  /** The page's absolute URL for an order the caller may see (404 otherwise). */
  async linkFor(scope: MerchantScope, orderId: string): Promise<string> {
    const order = await this.orders.get(scope, orderId);
    return this.urlOf(order.id);
  }

  /** The page's absolute URL of an order already known to be visible to the caller. */
  urlOf(orderId: string): string {
    return this.urls.to(this.pathOf(orderId));
  }

  pathOf(orderId: string): string {
    return `/c/${this.tokens.tokenFor(orderId)}`;
  }

  /** The order a token names, as the page shows it; null for an unknown or forged token. */
  async read(token: string): Promise<PageOrder | null> {
    const orderId = this.tokens.orderIdOf(token);
    return orderId ? this.pages.find(orderId) : null;
  }

  /** Approve or Cancel from the page: exactly a tap, decided under the order's lock (one answer wins). */
  async answer(token: string, action: "approve" | "cancel"): Promise<PageAnswer> {
    const orderId = this.tokens.orderIdOf(token);
    if (!orderId) return "not_found";
    const result = await this.orders.applyCustomerAction(orderId, action, null, null, "page");
    switch (result.outcome) {
      case "applied":
        return "applied";
      case "rejected":
      case "unchanged":
      case "duplicate":
        return "already_answered";
      default:
        return "not_found";
    }
  }
}
