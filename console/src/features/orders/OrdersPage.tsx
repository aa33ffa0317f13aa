import "../../shared/ui/desk.css";
import { useEffect, useMemo, useState, type FormEvent } from "react";
import { Link, useLocation, useNavigate, useSearchParams } from "react-router";
import { useQuery } from "urql";
import { graphql } from "../../gql/index.ts";
import type { OrderRowFieldsFragment, OrderStatus } from "../../gql/graphql.ts";
import { useI18n } from "../../shared/i18n/i18n.tsx";
import { useOnReconnect, useOrderEvents } from "../../shared/live-orders.tsx";
import { ErrorBanner } from "../../shared/ui/errors.tsx";
import { Pager } from "../../shared/ui/Pager.tsx";
import { StatusBadge } from "../../shared/ui/StatusBadge.tsx";
import { applyOrderEvent, pageState, type OrdersPageState } from "./apply-order-event.ts";
import { readOrdersParams, toFilter, writeOrdersParams, type OrdersQueryParams } from "./orders-url.ts";
import { exportUrl } from "./export-url.ts";
import { useViewer } from "../../shared/session/viewer.tsx";
import { canWorkOrders, isAgent } from "../../shared/session/permissions.ts";
import { GettingStartedCard } from "../getting-started/GettingStartedCard.tsx";

export const OrderRowFields = graphql(`
  fragment OrderRowFields on Order {
    id
    externalOrderId
    status
    customerAction
    deliveryStatus
    customerName
    customerPhone
    totalCost
    currency
    createdAt
    updatedAt
  }
`);

const OrdersQuery = graphql(`
  query Orders($first: Int!, $after: String, $filter: OrderFilter) {
    orders(first: $first, after: $after, filter: $filter) {
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

const PAGE_SIZE = 20;
const STATUSES: OrderStatus[] = ["PENDING", "CONFIRMED", "CANCELED", "FAILED", "EXPIRED"];

/** The cursors of the pages before this one, kept in the history entry (Previous works after a reload too). */
interface PagingState {
  previous?: (string | null)[];
}

export function OrdersPage() {
  const { t, dateTime, money, timeZone } = useI18n();
  const viewer = useViewer();
  const role = viewer.user?.role;
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const location = useLocation();
  const params = readOrdersParams(search);
  const filter = useMemo(() => toFilter(params), [search.toString()]); // eslint-disable-line react-hooks/exhaustive-deps
  const previous = (location.state as PagingState | null)?.previous ?? [];

  const [result, reexecute] = useQuery({
    query: OrdersQuery,
    variables: {
      first: PAGE_SIZE,
      after: params.after,
      filter: {
        status: filter.status.length ? (filter.status as OrderStatus[]) : undefined,
        createdFrom: filter.createdFrom,
        createdTo: filter.createdTo,
        search: filter.search,
        needsReply: params.needsReply ? true : undefined,
      },
    },
    requestPolicy: "cache-and-network",
  });

  const [state, setState] = useState<OrdersPageState<OrderRowFieldsFragment>>(pageState([]));
  useEffect(() => {
    if (result.data) setState(pageState(result.data.orders.edges.map((edge) => edge.node)));
  }, [result.data]);

  // An event does not say whether the order needs a reply: that list is read again instead.
  const socketState = useOrderEvents((event) =>
    params.needsReply
      ? reexecute({ requestPolicy: "network-only" })
      : setState((current) => applyOrderEvent(current, event.order, { firstPage: !params.after, filter })),
  );

  // Orders created or changed while the socket was down sent events nobody received: read the page again.
  useOnReconnect(() => reexecute({ requestPolicy: "network-only" }));

  const go = (next: OrdersQueryParams, paging: PagingState) => navigate({ search: `?${writeOrdersParams(next)}` }, { state: paging });
  const onFilter = (next: OrdersQueryParams) => go({ ...next, after: null }, {});

  const pageInfo = result.data?.orders.pageInfo;
  const filtered = params.status.length > 0 || params.from || params.to || params.q || params.needsReply;

  return (
    <section aria-labelledby="orders-title">
      <div className="page-head">
        <h1 id="orders-title">{t("orders.title")}</h1>
        <p className={`live-state live-state-${socketState}`} data-testid="live-state" data-state={socketState} role="status">
          {socketState === "live" ? t("orders.live") : t("orders.reconnecting")}
        </p>
        {canWorkOrders(role) ? (
          <a className="button-link" href={exportUrl(filter, viewer.mode === "LIVE" ? "live" : "test", { needsReply: params.needsReply })} download title={t("orders.exportHint")} data-testid="export-csv">
            {t("orders.export")}
          </a>
        ) : null}
      </div>
      {role && !isAgent(role) ? <GettingStartedCard /> : null}
      <OrderFilters params={params} onApply={onFilter} />
      <ErrorBanner error={result.error} />
      <p className="muted small">{t("common.timeZone", { zone: timeZone })}</p>
      <div className="table-wrap">
        <table className="table cards" data-testid="orders-table">
          <thead>
            <tr>
              <th scope="col">{t("orders.column.order")}</th>
              <th scope="col">{t("orders.column.customer")}</th>
              <th scope="col" className="numeric">
                {t("orders.column.total")}
              </th>
              <th scope="col">{t("orders.column.status")}</th>
              <th scope="col">{t("orders.column.delivery")}</th>
              <th scope="col">{t("orders.column.created")}</th>
            </tr>
          </thead>
          <tbody>
            {state.rows.map((order) => {
              const changes = state.changes[order.id] ?? 0;
              return (
                <tr
                  key={`${order.id}:${changes}`}
                  data-order-id={order.id}
                  data-external-id={order.externalOrderId}
                  data-status={order.status}
                  className={changes > 0 ? "flash" : undefined}
                >
                  <td>
                    <Link to={`/orders/${order.id}`} dir="ltr" className="nowrap">
                      {order.externalOrderId}
                    </Link>
                  </td>
                  <td>
                    <div>{order.customerName}</div>
                    <div className="muted small" dir="ltr">
                      +{order.customerPhone}
                    </div>
                  </td>
                  <td className="numeric">{money(order.totalCost, order.currency)}</td>
                  <td>
                    <StatusBadge status={order.status} />
                  </td>
                  <td>{order.deliveryStatus ? t(`delivery.${order.deliveryStatus}`) : t("common.none")}</td>
                  <td>{dateTime(order.createdAt)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {result.data && state.rows.length === 0 ? (
          <p className="empty" data-testid="orders-empty">
            {filtered ? t("orders.emptyFiltered") : t("orders.empty")}
          </p>
        ) : null}
      </div>
      <Pager
        page={previous.length + 1}
        hasPrevious={previous.length > 0}
        hasNext={Boolean(pageInfo?.hasNextPage)}
        onPrevious={() => go({ ...params, after: previous[previous.length - 1] ?? null }, { previous: previous.slice(0, -1) })}
        onNext={() => go({ ...params, after: pageInfo?.endCursor ?? null }, { previous: [...previous, params.after] })}
      />
    </section>
  );
}

function OrderFilters(props: { params: OrdersQueryParams; onApply(params: OrdersQueryParams): void }) {
  const { t } = useI18n();
  const [draft, setDraft] = useState(props.params);
  useEffect(() => setDraft(props.params), [props.params.status.join(), props.params.from, props.params.to, props.params.q, props.params.needsReply]); // eslint-disable-line react-hooks/exhaustive-deps
  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onApply(draft);
  };
  return (
    <form className="filters" onSubmit={submit} role="search">
      <label>
        {t("orders.filter.status")}
        <select
          name="status"
          value={draft.status[0] ?? ""}
          onChange={(e) => setDraft({ ...draft, status: e.target.value ? [e.target.value] : [] })}
        >
          <option value="">{t("orders.filter.anyStatus")}</option>
          {STATUSES.map((status) => (
            <option key={status} value={status}>
              {t(`status.${status}`)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t("orders.filter.from")}
        <input type="date" name="from" value={draft.from} onChange={(e) => setDraft({ ...draft, from: e.target.value })} />
      </label>
      <label>
        {t("orders.filter.to")}
        <input type="date" name="to" value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.target.value })} />
      </label>
      <label>
        {t("orders.filter.search")}
        <input
          type="search"
          name="q"
          dir="auto"
          title={t("orders.filter.searchHint")}
          value={draft.q}
          onChange={(e) => setDraft({ ...draft, q: e.target.value })}
        />
      </label>
      <label className="checkbox-label">
        <input
          type="checkbox"
          name="needsReply"
          checked={Boolean(draft.needsReply)}
          onChange={(e) => setDraft({ ...draft, needsReply: e.target.checked })}
        />
        {t("orders.filter.needsReply")}
      </label>
      <div className="filter-actions">
        <button type="submit" className="primary">
          {t("common.apply")}
        </button>
        <button type="button" onClick={() => props.onApply({ status: [], from: "", to: "", q: "", after: null })}>
          {t("common.clear")}
        </button>
      </div>
    </form>
  );
}
