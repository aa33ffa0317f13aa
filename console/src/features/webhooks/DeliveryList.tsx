import { useEffect, useState } from "react";
import { Link } from "react-router";
import { useMutation } from "urql";
import { graphql } from "../../gql/index.ts";
import type { DeliveryFieldsFragment } from "../../gql/graphql.ts";
import { useI18n } from "../../shared/i18n/i18n.tsx";
import { useViewer } from "../../shared/session/viewer.tsx";
import { mutationErrorMessage } from "../../shared/ui/errors.tsx";
import { DeliveryStatusBadge } from "../../shared/ui/StatusBadge.tsx";

export const DeliveryFields = graphql(`
  fragment DeliveryFields on WebhookDelivery {
    id
    eventId
    event
    orderId
    endpointId
    status
    createdAt
    attempts {
      at
      statusCode
      durationMs
      error
    }
  }
`);

const RetryDeliveryMutation = graphql(`
  mutation RetryWebhookDelivery($id: ID!) {
    retryWebhookDelivery(id: $id) {
      delivery {
        ...DeliveryFields
      }
      userErrors {
        code
        message
      }
    }
  }
`);

/**
 * Webhook deliveries with every attempt, and Redeliver (same webhook-id) for admins. Attempts happen on the server
 * after the page has read them (a redelivery goes out after its mutation answered), and no live event reports them:
 * while a delivery is pending the list asks its page to read it again, after 1 s, then 2, 4 … up to every 30 s,
 * starting over whenever a delivery changes.
 */
export function DeliveryList(props: {
  deliveries: DeliveryFieldsFragment[];
  empty: string;
  showOrder?: boolean;
  endpointUrl?(endpointId: string): string | undefined;
  /** Read the deliveries again (after a redelivery, and while some are pending). */
  onRefresh(): void;
}) {
  const { t, dateTime } = useI18n();
  const viewer = useViewer();
  const [retry, retryDelivery] = useMutation(RetryDeliveryMutation);
  const [retryingId, setRetryingId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { onRefresh } = props;
  const pending = props.deliveries.some((delivery) => delivery.status === "PENDING");
  const state = props.deliveries.map((delivery) => `${delivery.id}:${delivery.status}:${delivery.attempts.length}`).join();
  const [reads, setReads] = useState({ state, count: 0 });
  if (reads.state !== state) setReads({ state, count: 0 });
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(() => {
      setReads((current) => ({ ...current, count: current.count + 1 }));
      onRefresh();
    }, Math.min(30_000, 1_000 * 2 ** reads.count));
    return () => clearTimeout(timer);
  }, [pending, reads, onRefresh]);

  if (props.deliveries.length === 0) return <p className="empty">{props.empty}</p>;

  const onRetry = async (id: string) => {
    setRetryingId(id);
    setError(null);
    const outcome = await retryDelivery({ id });
    setRetryingId(null);
    const message = mutationErrorMessage(outcome.error, t) ?? outcome.data?.retryWebhookDelivery.userErrors.map((e) => e.message).join("; ");
    if (message) setError(message);
    props.onRefresh();
  };

  return (
    <>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      <ul className="deliveries" data-testid="deliveries">
        {props.deliveries.map((delivery) => (
          <li key={delivery.id} className="delivery" data-delivery-id={delivery.id} data-status={delivery.status}>
            <div className="delivery-head">
              <code dir="ltr">{delivery.event}</code>
              <DeliveryStatusBadge status={delivery.status} />
              {props.showOrder ? (
                <Link to={`/orders/${delivery.orderId}`} className="small">
                  {t("deliveries.order")}
                </Link>
              ) : null}
              {props.endpointUrl ? (
                <span className="muted small" dir="ltr">
                  {props.endpointUrl(delivery.endpointId) ?? delivery.endpointId}
                </span>
              ) : null}
              <span className="muted small">{dateTime(delivery.createdAt)}</span>
              {viewer.canWrite ? (
                <button type="button" className="small-button" disabled={retry.fetching && retryingId === delivery.id} onClick={() => onRetry(delivery.id)}>
                  {retryingId === delivery.id ? t("deliveries.retrying") : t("deliveries.retry")}
                </button>
              ) : null}
            </div>
            <ol className="attempts small" aria-label={t("deliveries.attempts")}>
              {delivery.attempts.length === 0 ? <li className="muted">{t("deliveries.noAttempts")}</li> : null}
              {delivery.attempts.map((attempt, index) => (
                <li key={index} className={attempt.error ? "error-text" : undefined}>
                  {t("deliveries.attempt", {
                    at: dateTime(attempt.at),
                    result: attempt.statusCode ? `HTTP ${attempt.statusCode}` : t("deliveries.noResponse"),
                    ms: attempt.durationMs,
                  })}
                  {attempt.error ? ` · ${attempt.error}` : ""}
                </li>
              ))}
            </ol>
          </li>
        ))}
      </ul>
    </>
  );
}
