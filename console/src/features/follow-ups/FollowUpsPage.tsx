import "../../shared/ui/desk.css";
import { useCallback, useEffect, useRef, useState } from "react";
import { Link, useLocation, useNavigate, useParams } from "react-router";
import { useQuery, useSubscription } from "urql";
import { graphql } from "../../gql/index.ts";
import type { OrderRowFieldsFragment } from "../../gql/graphql.ts";
import { useI18n } from "../../shared/i18n/i18n.tsx";
import { useOnReconnect, useOrderEvents } from "../../shared/live-orders.tsx";
import { isAgent } from "../../shared/session/permissions.ts";
import { useViewer } from "../../shared/session/viewer.tsx";
import { ErrorBanner } from "../../shared/ui/errors.tsx";
import { Pager } from "../../shared/ui/Pager.tsx";
import { StatusBadge } from "../../shared/ui/StatusBadge.tsx";
import { telLink, whatsappLink } from "./contact-links.ts";
import { FollowUpOrderPanel } from "./FollowUpOrderPanel.tsx";
import { NEEDS_REPLY_CHANGED } from "../conversation/NeedsReplyCount.tsx";
import { useQueueNotifications } from "./use-queue-notifications.ts";

const FollowUpQueueQuery = graphql(`
  query FollowUpQueue($first: Int!, $after: String) {
    orders(first: $first, after: $after, filter: { needsFollowUp: true }) {
      totalCount
      totalCountPrecision
      edges {
        cursor
        node {
          ...OrderRowFields
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

const FollowUpPolicyQuery = graphql(`
  query FollowUpPolicy {
    confirmationPolicy {
      followUpAfter
    }
  }
`);

// A customer's message that needs a person puts its order in the queue at once (SPEC §11 needs reply).
const FollowUpMessageSubscription = graphql(`
  subscription FollowUpMessages {
    orderMessageReceived {
      timestamp
    }
  }
`);

const PAGE_SIZE = 25;
/** Orders join the queue as time passes (no event says so): the queue is read again this often while open. */
const REFRESH_MS = 60_000;

interface PagingState {
  previous?: (string | null)[];
}

/**
 * The follow-up desk (SPEC §15): the queue of pending orders nobody answered in time, with call and WhatsApp links,
 * and the chosen order beside it (/follow-ups/:orderId) with the form to record the answer. Live: an order that
 * gets an answer (a tap, a colleague's recorded answer) leaves the queue at once; new ones arrive on the periodic
 * read, the reconnect read, and after each answer.
 */
export function FollowUpsPage() {
  const { t, dateTime, money } = useI18n();
  const viewer = useViewer();
  const { orderId } = useParams();
  const navigate = useNavigate();
  const location = useLocation();
  const search = new URLSearchParams(location.search);
  const after = search.get("after") || null;
  const previous = (location.state as PagingState | null)?.previous ?? [];

  const [result, reexecute] = useQuery({ query: FollowUpQueueQuery, variables: { first: PAGE_SIZE, after }, requestPolicy: "cache-and-network" });
  const [policy] = useQuery({ query: FollowUpPolicyQuery, pause: isAgent(viewer.user?.role) });
  const refresh = useCallback(() => reexecute({ requestPolicy: "network-only" }), [reexecute]);
  const [gone, setGone] = useState<ReadonlySet<string>>(new Set());

  useEffect(() => {
    setGone(new Set());
  }, [result.data]);
  useEffect(() => {
    const timer = setInterval(refresh, REFRESH_MS);
    // A reply sent from this tab (the conversation beside the queue) may take an order out of the queue.
    window.addEventListener(NEEDS_REPLY_CHANGED, refresh);
    return () => {
      clearInterval(timer);
      window.removeEventListener(NEEDS_REPLY_CHANGED, refresh);
    };
  }, [refresh]);
  useOnReconnect(refresh);
  useSubscription({ query: FollowUpMessageSubscription }, (_previous, data) => {
    refresh();
    return data;
  });
  // An order that is no longer pending has its answer: out of the queue now, the count on the next read.
  const socketState = useOrderEvents((event) => {
    if (event.order.status !== "PENDING") setGone((current) => new Set(current).add(event.order.id));
  });

  const rows = (result.data?.orders.edges ?? []).map((edge) => edge.node).filter((order) => !gone.has(order.id));
  const notifications = useQueueNotifications(result.data ? rows : null);
  const total = result.data?.orders.totalCount;
  const atLeast = result.data?.orders.totalCountPrecision === "AT_LEAST";
  const pageInfo = result.data?.orders.pageInfo;
  const followUpAfter = policy.data?.confirmationPolicy.followUpAfter;
  const queuePath = (next: string | null) => `/follow-ups${next ? `?after=${encodeURIComponent(next)}` : ""}`;
  const withPage = (path: string) => `${path}${after ? `?after=${encodeURIComponent(after)}` : ""}`;

  return (
    <section aria-labelledby="follow-ups-title" className={`desk${orderId ? " desk-open" : ""}`}>
      <div className="page-head">
        <h1 id="follow-ups-title">{t("followUps.title")}</h1>
        {total !== undefined ? (
          <span className="badge badge-pending" data-testid="follow-up-count">
            {t(atLeast ? "followUps.countAtLeast" : "followUps.count", { count: total - (atLeast ? 0 : gone.size) })}
          </span>
        ) : null}
        <p className={`live-state live-state-${socketState}`} data-testid="live-state" data-state={socketState} role="status">
          {socketState === "live" ? t("orders.live") : t("orders.reconnecting")}
        </p>
        <div className="button-row">
          <button type="button" onClick={refresh}>
            {t("followUps.refresh")}
          </button>
          {notifications.supported ? (
            <button
              type="button"
              aria-pressed={notifications.enabled}
              data-testid="notify-toggle"
              onClick={notifications.enabled ? notifications.disable : notifications.enable}
              title={notifications.enabled ? t("followUps.notify.disable") : undefined}
            >
              {notifications.enabled ? t("followUps.notify.enabled") : t("followUps.notify.enable")}
            </button>
          ) : null}
        </div>
      </div>
      <p className="muted desk-intro">{followUpAfter ? t("followUps.intro", { after: followUpAfter }) : t("followUps.introDefault")}</p>
      {notifications.blocked ? <p className="warning small">{t("followUps.notify.blocked")}</p> : null}
      <ErrorBanner error={result.error} />

      <div className="desk-grid">
        <div className="desk-queue">
          {result.data && rows.length === 0 ? (
            <div className="card empty-state" data-testid="follow-ups-empty">
              <h2>{t("followUps.empty.title")}</h2>
              <p className="muted">{t("followUps.empty.body")}</p>
            </div>
          ) : null}
          <ul className="queue" data-testid="follow-up-queue" aria-label={t("followUps.title")}>
            {rows.map((order) => (
              <QueueItem
                key={order.id}
                order={order}
                selected={order.id === orderId}
                to={withPage(`/follow-ups/${order.id}`)}
                waiting={t("followUps.waiting", { time: dateTime(order.createdAt) })}
                total={money(order.totalCost, order.currency)}
              />
            ))}
          </ul>
          <Pager
            page={previous.length + 1}
            hasPrevious={previous.length > 0}
            hasNext={Boolean(pageInfo?.hasNextPage)}
            onPrevious={() => navigate(queuePath(previous[previous.length - 1] ?? null), { state: { previous: previous.slice(0, -1) } })}
            onNext={() => navigate(queuePath(pageInfo?.endCursor ?? null), { state: { previous: [...previous, after] } })}
          />
        </div>
        <div className="desk-panel">
          {orderId ? (
            <>
              <Link to={withPage("/follow-ups")} className="desk-back">
                ← {t("followUps.back")}
              </Link>
              <FollowUpOrderPanel key={orderId} orderId={orderId} canAnswer={viewer.canWrite} onAnswered={refresh} />
            </>
          ) : (
            <p className="muted card">{t("followUps.select")}</p>
          )}
        </div>
      </div>
    </section>
  );
}

function QueueItem(props: { order: OrderRowFieldsFragment; selected: boolean; to: string; waiting: string; total: string }) {
  const { t } = useI18n();
  const { order } = props;
  const tel = telLink(order.customerPhone);
  const chat = whatsappLink(order.customerPhone);
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (props.selected) ref.current?.scrollIntoView?.({ block: "nearest" });
  }, [props.selected]);
  return (
    <li ref={ref} className={`queue-item${props.selected ? " selected" : ""}`} data-order-id={order.id} data-external-id={order.externalOrderId}>
      <Link to={props.to} className="queue-main" aria-current={props.selected ? "true" : undefined}>
        <span className="queue-name">{order.customerName}</span>
        <span className="muted small">
          <bdi dir="ltr">{order.externalOrderId}</bdi> · <bdi dir="ltr">{props.total}</bdi>
        </span>
        <span className="muted small">{props.waiting}</span>
      </Link>
      <span className="queue-status">
        <StatusBadge status={order.status} />
      </span>
      <span className="queue-actions">
        {tel ? (
          <a className="button-link" href={tel} aria-label={t("followUps.callLabel", { name: order.customerName, phone: order.customerPhone })} data-testid="call-link">
            {t("followUps.call")} <bdi dir="ltr">+{order.customerPhone}</bdi>
          </a>
        ) : null}
        {chat ? (
          <a
            className="button-link"
            href={chat}
            target="_blank"
            rel="noopener noreferrer"
            aria-label={t("followUps.whatsappLabel", { name: order.customerName, phone: order.customerPhone })}
            data-testid="whatsapp-link"
          >
            {t("followUps.whatsapp")}
          </a>
        ) : null}
      </span>
    </li>
  );
}
