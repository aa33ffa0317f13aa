import { useEffect } from "react";
import { Link } from "react-router";
import { useQuery, useSubscription } from "urql";
import { graphql } from "../../gql/index.ts";
import { useI18n } from "../../shared/i18n/i18n.tsx";
import { useOnReconnect, useOrderEvents } from "../../shared/live-orders.tsx";

const NeedsReplyQuery = graphql(`
  query NeedsReplyCount {
    orders(first: 1, filter: { needsReply: true }) {
      totalCount
      totalCountPrecision
    }
  }
`);

const AnyMessageSubscription = graphql(`
  subscription AnyOrderMessage {
    orderMessageReceived {
      timestamp
    }
  }
`);

/** Dispatched on `window` after this tab sent a reply (no event tells the other parts of the page). */
export const NEEDS_REPLY_CHANGED = "ocs:needs-reply-changed";

/** Merchant replies come from other tabs and the API too: the count is read again this often. */
const REFRESH_MS = 30_000;

/** The header's "N need a reply" link (SPEC §11), live: a customer's message or an order's change reads it again. */
export function NeedsReplyCount() {
  const { t, number } = useI18n();
  const [result, reexecute] = useQuery({ query: NeedsReplyQuery, requestPolicy: "cache-and-network" });
  const refresh = () => reexecute({ requestPolicy: "network-only" });
  useSubscription({ query: AnyMessageSubscription }, (_previous, data) => {
    refresh();
    return data;
  });
  useOrderEvents(refresh);
  useOnReconnect(refresh);
  useEffect(() => {
    const timer = setInterval(refresh, REFRESH_MS);
    window.addEventListener(NEEDS_REPLY_CHANGED, refresh);
    return () => {
      clearInterval(timer);
      window.removeEventListener(NEEDS_REPLY_CHANGED, refresh);
    };
  }, []); // eslint-disable-line react-hooks/exhaustive-deps
  const count = result.data?.orders.totalCount ?? 0;
  if (count === 0) return null;
  const shown = result.data?.orders.totalCountPrecision === "AT_LEAST" ? `${number(count)}+` : number(count);
  return (
    <Link to="/orders?needsReply=1" className="needs-reply-count" data-testid="needs-reply-count" data-count={count}>
      {t("header.needsReply", { count: shown })}
    </Link>
  );
}
