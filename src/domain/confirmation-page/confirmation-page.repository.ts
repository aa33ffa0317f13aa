import type pg from "pg";
import type { Language } from "../messaging/messaging-provider.ts";
import type { OrderView } from "../orders/order.view.ts";
import { ORDER_VIEW_JSON } from "../orders/order-sql.ts";
import { preparedStatement } from "../../db/prepared-statement.ts";

/** What the confirmation page shows: the order as the merchant sees it, its shop's name and its language. */
export interface PageOrder {
  order: OrderView;
  merchantName: string;
  language: Language;
}

/** One statement, like the REST read by id: a visible order (its send recorded) and its merchant's name. */
const FIND_PAGE_ORDER_SQL = `
  SELECT ${ORDER_VIEW_JSON} AS "order", m.name AS merchant_name, o.language
  FROM orders o JOIN merchants m ON m.id = o.merchant_id
  WHERE o.id = $1::uuid AND o.send_state <> 'sending'`;
const findPageOrder = preparedStatement("confirmation_page_order", FIND_PAGE_ORDER_SQL);

export class ConfirmationPageRepository {
  constructor(
    private readonly pool: pg.Pool,
    private readonly prepare = false,
  ) {}

  async find(orderId: string): Promise<PageOrder | null> {
    const { rows } = await this.pool.query<{ order: OrderView; merchant_name: string; language: string }>(
      findPageOrder([orderId], this.prepare),
    );
    const row = rows[0];
    if (!row) return null;
    return { order: row.order, merchantName: row.merchant_name, language: row.language === "ar" ? "ar" : "en" };
  }
}
