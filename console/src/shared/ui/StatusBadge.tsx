import type { OrderStatus, WebhookDeliveryStatus } from "../../gql/graphql.ts";
import { useI18n } from "../i18n/i18n.tsx";

export function StatusBadge({ status }: { status: OrderStatus }) {
  const { t } = useI18n();
  return (
    <span className={`badge badge-${status.toLowerCase()}`} data-status={status}>
      {t(`status.${status}`)}
    </span>
  );
}

export function DeliveryStatusBadge({ status }: { status: WebhookDeliveryStatus }) {
  const { t } = useI18n();
  return (
    <span className={`badge badge-delivery-${status.toLowerCase()}`} data-status={status}>
      {t(`deliveryStatus.${status}`)}
    </span>
  );
}
