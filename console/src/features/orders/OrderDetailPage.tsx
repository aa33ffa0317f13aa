import { useCallback, useState } from "react";
import { Link, useParams } from "react-router";
import { useMutation, useQuery } from "urql";
import { graphql } from "../../gql/index.ts";
import type { MessageKey } from "../../shared/i18n/messages.ts";
import { useI18n } from "../../shared/i18n/i18n.tsx";
import { useOnReconnect, useOrderEvents } from "../../shared/live-orders.tsx";
import { useViewer } from "../../shared/session/viewer.tsx";
import { ConfirmDialog } from "../../shared/ui/Dialog.tsx";
import { ErrorBanner, mutationErrorMessage } from "../../shared/ui/errors.tsx";
import { StatusBadge } from "../../shared/ui/StatusBadge.tsx";
import { DeliveryList } from "../webhooks/DeliveryList.tsx";
import { isAgent } from "../../shared/session/permissions.ts";
import { OrderConversation } from "../conversation/OrderConversation.tsx";

const OrderDetailQuery = graphql(`
  query OrderDetail($id: ID!, $withDeliveries: Boolean!) {
    order(id: $id) {
      ...OrderRowFields
      customerAddress
      subtotal
      shippingCost
      failureReason
      errorCode
      confirmationUrl
      items {
        id
        productName
        variantName
        quantity
        unitPrice
        totalPrice
      }
      timeline {
        at
        kind
        source
        detail
      }
      webhookDeliveries @include(if: $withDeliveries) {
        ...DeliveryFields
      }
    }
  }
`);

const CancelOrderMutation = graphql(`
  mutation CancelOrder($id: ID!) {
    cancelOrder(id: $id) {
      order {
        ...OrderRowFields
      }
      userErrors {
        code
        message
      }
    }
  }
`);

export function OrderDetailPage() {
  const { id = "" } = useParams();
  const { t, dateTime, money, number } = useI18n();
  const viewer = useViewer();
  // Agents work the follow-up desk: no webhook deliveries (the server refuses them that field), no merchant cancel.
  const agent = isAgent(viewer.user?.role);
  const [result, reexecute] = useQuery({ query: OrderDetailQuery, variables: { id, withDeliveries: !agent }, requestPolicy: "cache-and-network" });
  const refresh = useCallback(() => reexecute({ requestPolicy: "network-only" }), [reexecute]);
  const [cancelState, cancelOrder] = useMutation(CancelOrderMutation);
  const [confirming, setConfirming] = useState(false);
  const [cancelError, setCancelError] = useState<string | null>(null);

  // The event carries the order but not its timeline or deliveries: read this one order again.
  useOrderEvents((event) => {
    if (event.order.id === id) reexecute({ requestPolicy: "network-only" });
  });

  useOnReconnect(refresh);

  const order = result.data?.order;
  if (result.data && !order) {
    return (
      <section>
        <Link to="/orders">{t("order.back")}</Link>
        <p className="empty">{t("order.notFound", { mode: t(viewer.mode === "LIVE" ? "mode.live" : "mode.test") })}</p>
      </section>
    );
  }
  if (!order) return <ErrorBanner error={result.error} />;

  const onCancel = async () => {
    const outcome = await cancelOrder({ id });
    const message = mutationErrorMessage(outcome.error, t) ?? outcome.data?.cancelOrder.userErrors.map((e) => e.message).join("; ");
    if (message) {
      setCancelError(message);
      return;
    }
    setConfirming(false);
    reexecute({ requestPolicy: "network-only" });
  };

  return (
    <section aria-labelledby="order-title" data-testid="order-detail" data-status={order.status}>
      <Link to="/orders">← {t("order.back")}</Link>
      <div className="page-head">
        <h1 id="order-title">
          {t("order.title", { id: "" })}
          <span dir="ltr">{order.externalOrderId}</span>
        </h1>
        <StatusBadge status={order.status} />
        {viewer.canWrite && !agent && order.status === "PENDING" ? (
          <button type="button" className="danger" onClick={() => (setCancelError(null), setConfirming(true))}>
            {t("order.cancel")}
          </button>
        ) : null}
      </div>
      <ErrorBanner error={result.error} />

      <div className="grid-2">
        <div className="card">
          <dl className="facts">
            <dt>{t("order.customer")}</dt>
            <dd dir="auto">{order.customerName}</dd>
            <dt>{t("order.phone")}</dt>
            <dd>
              <bdi dir="ltr">+{order.customerPhone}</bdi>
            </dd>
            <dt>{t("order.address")}</dt>
            <dd dir="auto">{order.customerAddress ?? t("common.none")}</dd>
            <dt>{t("order.customerAction")}</dt>
            <dd>{order.customerAction ? t(order.customerAction === "APPROVED" ? "timeline.approved" : "timeline.canceled") : t("common.none")}</dd>
            <dt>{t("order.delivery")}</dt>
            <dd>{order.deliveryStatus ? t(`delivery.${order.deliveryStatus}`) : t("common.none")}</dd>
            {order.failureReason ? (
              <>
                <dt>{t("order.failure")}</dt>
                <dd>
                  {order.errorCode ? `${order.errorCode}: ` : ""}
                  {order.failureReason}
                </dd>
              </>
            ) : null}
            {order.confirmationUrl ? (
              <>
                <dt>{t("order.confirmationUrl")}</dt>
                <dd>
                  <a href={order.confirmationUrl} target="_blank" rel="noreferrer noopener" dir="ltr" className="break-anywhere" data-testid="confirmation-url">
                    {order.confirmationUrl}
                  </a>
                </dd>
              </>
            ) : null}
            <dt>{t("order.created")}</dt>
            <dd>{dateTime(order.createdAt)}</dd>
            <dt>{t("order.updated")}</dt>
            <dd>{dateTime(order.updatedAt)}</dd>
          </dl>
        </div>

        <div className="card">
          <h2>{t("order.items")}</h2>
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">{t("order.item.product")}</th>
                  <th scope="col" className="numeric">
                    {t("order.item.quantity")}
                  </th>
                  <th scope="col" className="numeric">
                    {t("order.item.unitPrice")}
                  </th>
                  <th scope="col" className="numeric">
                    {t("order.item.total")}
                  </th>
                </tr>
              </thead>
              <tbody>
                {order.items.map((item) => (
                  <tr key={item.id}>
                    <td>
                      {item.productName}
                      {item.variantName ? <span className="muted"> · {item.variantName}</span> : null}
                    </td>
                    <td className="numeric">{number(item.quantity)}</td>
                    <td className="numeric">{money(item.unitPrice, order.currency)}</td>
                    <td className="numeric">{money(item.totalPrice, order.currency)}</td>
                  </tr>
                ))}
              </tbody>
              <tfoot>
                <tr>
                  <th scope="row" colSpan={3}>
                    {t("order.subtotal")}
                  </th>
                  <td className="numeric">{money(order.subtotal, order.currency)}</td>
                </tr>
                <tr>
                  <th scope="row" colSpan={3}>
                    {t("order.shipping")}
                  </th>
                  <td className="numeric">{money(order.shippingCost, order.currency)}</td>
                </tr>
                <tr>
                  <th scope="row" colSpan={3}>
                    {t("order.total")}
                  </th>
                  <td className="numeric strong" data-testid="order-total">
                    {money(order.totalCost, order.currency)}
                  </td>
                </tr>
              </tfoot>
            </table>
          </div>
        </div>
      </div>

      <div className="card">
        <h2>{t("conversation.title")}</h2>
        <OrderConversation orderId={order.id} />
      </div>

      <div className="card">
        <h2>{t("order.timeline")}</h2>
        {order.timeline.length === 0 ? <p className="muted">{t("order.timelineEmpty")}</p> : null}
        <ol className="timeline" data-testid="timeline">
          {order.timeline.map((step, index) => (
            <li key={`${step.at}-${index}`} data-kind={step.kind}>
              <span className="timeline-kind">{timelineLabel(step.kind, t)}</span>
              <span className="muted small">
                {" "}
                · {sourceLabel(step.source, step.kind, t)} · {dateTime(step.at)}
              </span>
              {step.detail && typeof step.detail.by === "string" ? (
                <div className="small muted" dir="auto">
                  {typeof step.detail.via === "string" && ["phone", "in_person", "other"].includes(step.detail.via)
                    ? `${t("timeline.via", { via: t(`via.${step.detail.via}` as MessageKey) })} · `
                    : ""}
                  {t("timeline.by", { by: "" })}
                  <bdi>{step.detail.by}</bdi>
                  {typeof step.detail.note === "string" ? ` · “${step.detail.note}”` : ""}
                </div>
              ) : null}
              {step.detail && (step.detail.failureReason || step.detail.errorCode) ? (
                <div className="small error-text">
                  {String(step.detail.errorCode ?? "")} {String(step.detail.failureReason ?? "")}
                </div>
              ) : null}
              {step.detail && (step.detail.smsErrorCode || step.detail.smsFailureReason || step.detail.reason) ? (
                <div className="small error-text" data-testid="sms-error">
                  {t("order.smsError")}: {String(step.detail.smsErrorCode ?? "")} {String(step.detail.smsFailureReason ?? step.detail.reason ?? "")}
                </div>
              ) : null}
            </li>
          ))}
        </ol>
      </div>

      {!agent ? (
        <div className="card">
          <h2>{t("order.deliveries")}</h2>
          <DeliveryList
            deliveries={order.webhookDeliveries ?? []}
            empty={t("order.deliveriesEmpty")}
            onRefresh={refresh}
          />
        </div>
      ) : null}

      {confirming ? (
        <ConfirmDialog
          title={t("order.cancel")}
          message={t("order.cancelConfirm")}
          confirmLabel={cancelState.fetching ? t("order.canceling") : t("order.cancel")}
          busy={cancelState.fetching}
          error={cancelError}
          onConfirm={onCancel}
          onClose={() => setConfirming(false)}
        />
      ) : null}
    </section>
  );
}

function timelineLabel(kind: string, t: (key: MessageKey) => string): string {
  const key = `timeline.${kind}` as MessageKey;
  return key in TIMELINE_KEYS ? t(key) : kind;
}

const TIMELINE_KEYS: Record<string, true> = Object.fromEntries(
  [
    "created", "message_sent", "delivery_sent", "delivery_delivered", "delivery_read", "reminder_sent", "reminder_failed",
    "reminder_delivered", "reminder_read", "approved", "canceled", "failed", "expired", "message_failed", "sms_sent",
    "sms_delivered", "sms_failed", "customer_message",
  ].map(
    (kind) => [`timeline.${kind}`, true],
  ),
);

/** Who wrote a step; the provider of an SMS step is the SMS provider (Twilio), not WhatsApp. */
function sourceLabel(source: string, kind: string, t: (key: MessageKey) => string): string {
  if (source === "provider" && kind.startsWith("sms_")) return t("source.sms");
  return ["customer", "merchant", "provider", "scheduler"].includes(source) ? t(`source.${source}` as MessageKey) : source;
}
