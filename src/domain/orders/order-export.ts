import type pg from "pg";
import { Prisma } from "../../generated/prisma/client.ts";
import { filterConditions } from "./order-filter-sql.ts";
import { searchConditions } from "./order-search.ts";
import type { MerchantScope } from "./merchant-scope.ts";
import type { OrderFilter } from "./order.schemas.ts";
import { ISO_MS } from "./order-sql.ts";

/**
 * The CSV export of the order list (SPEC §15, GET /api/v1/orders/export): the list's own filters and order (newest
 * first), read in keyset batches of EXPORT_BATCH_ROWS and written as they come, so memory stays the same whether
 * the file has 10 rows or 100,000 (bench/export.ts measures it). Excel-friendly: a UTF-8 byte order mark (Arabic
 * names open intact), RFC 4180 (CRLF line ends, quotes doubled), times in ISO 8601 UTC, null as an empty cell, and
 * cells that a spreadsheet would run as a formula (starting with = + - @) prefixed with `'`.
 */
export const EXPORT_COLUMNS = [
  "id",
  "externalOrderId",
  "status",
  "customerAction",
  "deliveryStatus",
  "customerName",
  "customerPhone",
  "customerAddress",
  "subtotal",
  "shippingCost",
  "totalCost",
  "currency",
  "createdAt",
  "updatedAt",
  "answeredAt",
  "answeredVia",
] as const;

/** The most rows one export holds; more matching orders: the newest this many (narrow the dates for the rest). */
export const MAX_EXPORT_ROWS = 100_000;
/** Rows per database round trip: large enough to stream fast, small enough to keep memory flat. */
export const EXPORT_BATCH_ROWS = 500;

const BOM = "\uFEFF";
const CRLF = "\r\n";

type ExportRow = Record<(typeof EXPORT_COLUMNS)[number], string | null> & { cursorAt: string };

/**
 * One CSV cell: null → empty; a leading = + - @ gets a `'` so spreadsheets show it as text (formula injection);
 * quoted when it holds a quote, comma, CR or LF (quotes doubled).
 */
export function csvCell(value: string | null): string {
  if (value === null) return "";
  const safe = /^[=+\-@]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function csvLine(values: readonly (string | null)[]): string {
  return values.map(csvCell).join(",") + CRLF;
}

/**
 * How the customer answered, from the order's first `approved`/`canceled` step: a tap (whatsapp, and the simulator's
 * taps), a text reply, the confirmation page (also reached from an SMS), or an answer the merchant's team recorded
 * (phone, in_person, other). A merchant's own cancel (REST DELETE, cancelOrder) is not an answer: empty.
 */
const ANSWER_SQL = `LEFT JOIN LATERAL (
    SELECT t.at, CASE
        WHEN t.source = 'customer' THEN CASE t.detail->>'via' WHEN 'text' THEN 'text' WHEN 'page' THEN 'page' ELSE 'whatsapp' END
        ELSE t.detail->>'via' END AS via
    FROM order_timeline t
    WHERE t.order_id = o.id AND t.kind IN ('approved', 'canceled')
      AND (t.source = 'customer' OR (t.source = 'merchant' AND t.detail->>'via' IN ('phone', 'in_person', 'other')))
    ORDER BY t.at, t.id LIMIT 1
  ) answer ON true`;

function batchSql(scope: MerchantScope, filter: OrderFilter, limit: number, after: { at: string; id: string } | null): Prisma.Sql {
  const conditions = filter.search ? searchConditions(scope, { ...filter, search: filter.search }) : filterConditions(scope, filter);
  if (after) {
    conditions.push(Prisma.sql`o.created_at <= ${after.at}::timestamptz`);
    conditions.push(Prisma.sql`(o.created_at < ${after.at}::timestamptz OR (o.created_at = ${after.at}::timestamptz AND o.id < ${after.id}::uuid))`);
  }
  return Prisma.sql`SELECT o.id::text AS "id", o.external_order_id AS "externalOrderId", o.status::text AS "status",
      o.customer_action::text AS "customerAction", o.delivery_status::text AS "deliveryStatus",
      o.customer_name AS "customerName", o.customer_phone AS "customerPhone", o.customer_address AS "customerAddress",
      trim_scale(o.subtotal)::text AS "subtotal", trim_scale(o.shipping_cost)::text AS "shippingCost",
      trim_scale(o.total_cost)::text AS "totalCost", o.currency AS "currency",
      to_char(o.created_at AT TIME ZONE 'UTC', ${Prisma.raw(ISO_MS)}) AS "createdAt",
      to_char(o.updated_at AT TIME ZONE 'UTC', ${Prisma.raw(ISO_MS)}) AS "updatedAt",
      to_char(answer.at AT TIME ZONE 'UTC', ${Prisma.raw(ISO_MS)}) AS "answeredAt", answer.via AS "answeredVia",
      to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "cursorAt"
    FROM (SELECT * FROM orders o WHERE ${Prisma.join(conditions, " AND ")}
          ORDER BY o.created_at DESC, o.id DESC LIMIT ${limit}) o
    ${Prisma.raw(ANSWER_SQL)}
    ORDER BY o.created_at DESC, o.id DESC`;
}

/**
 * The export as text chunks: the BOM and header row, then one chunk per batch. Pull-driven (an async generator):
 * the next batch is read only when the consumer (the HTTP response) wants more, so a slow download holds one batch,
 * and a closed connection stops the reading.
 */
export async function* exportOrdersCsv(
  pool: pg.Pool,
  scope: MerchantScope,
  filter: OrderFilter,
  options: { maxRows?: number; batchRows?: number } = {},
): AsyncGenerator<string> {
  const maxRows = options.maxRows ?? MAX_EXPORT_ROWS;
  const batchRows = options.batchRows ?? EXPORT_BATCH_ROWS;
  yield BOM + csvLine(EXPORT_COLUMNS);
  let after: { at: string; id: string } | null = null;
  let written = 0;
  while (written < maxRows) {
    const sql = batchSql(scope, filter, Math.min(batchRows, maxRows - written), after);
    const { rows } = await pool.query<ExportRow>(sql.text, sql.values);
    if (rows.length === 0) return;
    let chunk = "";
    for (const row of rows) chunk += csvLine(EXPORT_COLUMNS.map((column) => row[column]));
    written += rows.length;
    const last = rows[rows.length - 1];
    after = { at: last.cursorAt, id: last.id as string };
    yield chunk;
    if (rows.length < batchRows) return;
  }
}

/** Whether more than `maxRows` orders match (the export then holds the newest `maxRows`): a count that stops early. */
export async function exceedsExportLimit(pool: pg.Pool, scope: MerchantScope, filter: OrderFilter, maxRows = MAX_EXPORT_ROWS): Promise<boolean> {
  const conditions = filter.search ? searchConditions(scope, { ...filter, search: filter.search }) : filterConditions(scope, filter);
  const sql = Prisma.sql`SELECT EXISTS (SELECT 1 FROM orders o WHERE ${Prisma.join(conditions, " AND ")}
    ORDER BY o.created_at DESC, o.id DESC OFFSET ${maxRows} LIMIT 1) AS more`;
  const { rows } = await pool.query<{ more: boolean }>(sql.text, sql.values);
  return rows[0]?.more ?? false;
}
