import { z } from "zod";
import { problemFromIssue } from "../../i18n/zod-issues.ts";
import { ValidationError } from "../errors.ts";
import { isTimeZone } from "../confirmation/quiet-hours.ts";
import { isoDateTime } from "../orders/order.schemas.ts";

/**
 * Order statistics (SPEC §10: Query.orderStats, GET /api/v1/stats/orders). Definitions, shared by both doors:
 * - The range is [from, to) over the orders' createdAt, for the caller's merchant and mode, visible orders only
 *   (an order whose first send has no result yet does not exist for anyone).
 * - created: those orders; confirmed/canceled/failed/expired/pending: how many of them are in that status now.
 * - answered: those the customer answered (a tap on Approve or Cancel, a clear text, the page, or an answer the
 *   merchant's team recorded from a call: SPEC §15); a merchant's own cancel is not an answer.
 *   Orders from before the timeline existed count as answered when they have a customerAction.
 * - confirmationRate = confirmed ÷ answered; answerRate = answered ÷ created (null when dividing by 0). Their
 *   product is confirmed ÷ created.
 * - time to answer: from createdAt to the customer's tap (its timeline step; updatedAt for older orders), p50 and
 *   p90 (continuous percentiles) over the answered orders, in seconds; null when none was answered.
 * - failuresByErrorCode: failed orders per errorCode (null = failed without a provider code), most frequent first.
 * - buckets: every DAY or HOUR of the time zone that overlaps [from, to), oldest first, empty ones included, each
 *   with the same figures for the orders created in it (and in the range).
 */
export const STATS_INTERVALS = ["day", "hour"] as const;
export type StatsInterval = (typeof STATS_INTERVALS)[number];

/** The longest range per interval: at most 367 day buckets, or 745 hour buckets (31 days, unaligned ends). */
export const MAX_RANGE_DAYS: Record<StatsInterval, number> = { day: 366, hour: 31 };
const DAY_MS = 86_400_000;

const dateTime = isoDateTime.transform((text) => new Date(text));

/** The query of both doors; REST reads it from the query string, GraphQL from the field's arguments. */
export const orderStatsQuery = z
  .object({
    from: dateTime.meta({ description: "Start of the range (inclusive), ISO 8601 with an offset" }),
    to: dateTime.meta({ description: "End of the range (exclusive), ISO 8601 with an offset" }),
    timeZone: z
      .string()
      .max(64)
      .refine(isTimeZone, { error: "i18n:format.time_zone" })
      .default("UTC")
      .meta({ description: "IANA time zone of the buckets, e.g. Asia/Riyadh (default UTC)" }),
    interval: z.enum(STATS_INTERVALS).default("day").meta({ description: "Bucket size: day (default) or hour" }),
  })
  .superRefine((query, ctx) => {
    // Runs even when a date was refused (zod reports every problem): compare only dates that parsed.
    if (!(query.from instanceof Date) || !(query.to instanceof Date)) return;
    const span = query.to.getTime() - query.from.getTime();
    if (span <= 0) {
      ctx.addIssue({ code: "custom", path: ["to"], message: "i18n:stats.range_order" });
    } else if (span > MAX_RANGE_DAYS[query.interval] * DAY_MS) {
      const params = { days: MAX_RANGE_DAYS[query.interval], interval: query.interval };
      ctx.addIssue({ code: "custom", path: ["to"], message: "i18n:stats.range_length", params });
    }
  });

export type OrderStatsQuery = z.infer<typeof orderStatsQuery>;

/** The arguments as a door received them (absent ones omitted), checked; a problem names its argument. */
export function readOrderStatsQuery(input: Record<string, unknown>): OrderStatsQuery {
  const parsed = orderStatsQuery.safeParse(input, { reportInput: true });
  if (!parsed.success) throw new ValidationError(parsed.error.issues.map((issue) => problemFromIssue(issue)));
  return parsed.data;
}

export interface FailureCount {
  /** The provider's error code; null for failures without one (e.g. the send never reached the provider). */
  errorCode: number | null;
  count: number;
  /** What the code usually means (the seed's list of common WhatsApp codes), in the caller's language; else null. */
  meaning: string | null;
}

export interface OrderStatsFigures {
  created: number;
  confirmed: number;
  canceled: number;
  failed: number;
  expired: number;
  pending: number;
  answered: number;
  confirmationRate: number | null;
  answerRate: number | null;
  timeToAnswerP50Seconds: number | null;
  timeToAnswerP90Seconds: number | null;
  failuresByErrorCode: FailureCount[];
}

export interface OrderStatsBucket extends OrderStatsFigures {
  /** The bucket's first instant (local midnight or the start of the local hour), ISO 8601 UTC. */
  start: string;
}

export interface OrderStats {
  from: string;
  to: string;
  timeZone: string;
  interval: StatsInterval;
  totals: OrderStatsFigures;
  buckets: OrderStatsBucket[];
}
