import { useEffect, useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { useMutation, useQuery } from "urql";
import { graphql } from "../../gql/index.ts";
import type { StoreConnectionsQuery } from "../../gql/graphql.ts";
import { formatDateTime } from "../../shared/i18n/format.ts";
import { useI18n } from "../../shared/i18n/i18n.tsx";
import type { MessageKey } from "../../shared/i18n/messages.ts";
import { useConsole } from "../../shared/session/console-context.tsx";
import { useViewer } from "../../shared/session/viewer.tsx";
import { ConfirmDialog } from "../../shared/ui/Dialog.tsx";
import { ErrorBanner, mutationErrorMessage } from "../../shared/ui/errors.tsx";
import { ConnectWooCommerceForm, SallaLinkCodeCard } from "./ConnectOtherStores.tsx";

const StoreConnectionsDocument = graphql(`
  query StoreConnections {
    storeConnections {
      id
      platform
      shop
      status
      createdAt
      lastOrderAt
      settings {
        codOnly
        codPaymentNames
        tagConfirmed
        tagCanceled
        tagExpired
        tagFailed
        cancelOnCustomerCancel
        cancelOnExpiry
        holdFulfillmentUntilConfirmed
        language
      }
      activity(first: 20) {
        at
        kind
        storeOrderId
        orderId
        detail
      }
    }
  }
`);

const UpdateStoreDocument = graphql(`
  mutation UpdateStoreConnection($id: ID!, $input: StoreSettingsInput!) {
    updateStoreConnection(id: $id, input: $input) {
      connection {
        id
      }
      userErrors {
        code
        message
        field
      }
    }
  }
`);

const DisconnectStoreDocument = graphql(`
  mutation DisconnectStore($id: ID!) {
    disconnectStore(id: $id) {
      connection {
        id
        status
      }
      userErrors {
        code
        message
      }
    }
  }
`);

type Connection = StoreConnectionsQuery["storeConnections"][number];
/** Recent activity is polled (there is no subscription for it): new orders and write-backs show within seconds. */
const ACTIVITY_POLL_MS = 3_000;

/** Stores (SPEC §13): connect a Shopify shop, its status, settings and recent activity, disconnect. */
export function StoresPage() {
  const { t } = useI18n();
  const viewer = useViewer();
  const [params] = useSearchParams();
  const [result, refetch] = useQuery({ query: StoreConnectionsDocument, requestPolicy: "cache-and-network" });
  useEffect(() => {
    const timer = setInterval(() => refetch({ requestPolicy: "network-only" }), ACTIVITY_POLL_MS);
    return () => clearInterval(timer);
  }, [refetch]);
  const connections = result.data?.storeConnections ?? [];
  return (
    <section aria-labelledby="stores-title">
      <div className="page-head">
        <h1 id="stores-title">{t("stores.title")}</h1>
      </div>
      <p className="muted">{t("stores.intro")}</p>
      <ErrorBanner error={result.error} />
      {params.get("connected") ? (
        <p className="success" role="status">
          {t("stores.connected")}
        </p>
      ) : null}
      {viewer.canWrite ? (
        <div className="store-connect">
          <ConnectShopifyForm />
          <ConnectWooCommerceForm onConnected={() => refetch({ requestPolicy: "network-only" })} />
          <SallaLinkCodeCard />
        </div>
      ) : (
        <p className="muted">{t("stores.readOnly")}</p>
      )}
      {result.data && connections.length === 0 ? <p className="empty">{t("stores.empty")}</p> : null}
      <ul className="stores" data-testid="stores">
        {connections.map((connection) => (
          <StoreCard key={connection.id} connection={connection} canWrite={viewer.canWrite} onChanged={() => refetch({ requestPolicy: "network-only" })} />
        ))}
      </ul>
    </section>
  );
}

function ConnectShopifyForm() {
  const { t } = useI18n();
  const { mode } = useConsole();
  const [shop, setShop] = useState("");
  const [error, setError] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const name = shop.trim().toLowerCase().replace(/^https?:\/\//, "").replace(/\/.*$/, "");
    const domain = name.endsWith(".myshopify.com") ? name : `${name}.myshopify.com`;
    if (!/^[a-z0-9][a-z0-9-]{0,59}\.myshopify\.com$/.test(domain)) {
      setError(t("stores.shopInvalid"));
      return;
    }
    // A full-page navigation: the install redirects to Shopify and back to this page.
    window.location.assign(`/integrations/shopify/install?shop=${encodeURIComponent(domain)}&mode=${mode.toLowerCase()}`);
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="connect-shopify" noValidate>
      <h2 id="connect-shopify">{t("stores.connectShopify")}</h2>
      <label>
        {t("stores.shopName")}
        <span className="input-suffix" dir="ltr">
          <input
            name="shop"
            value={shop}
            onChange={(event) => setShop(event.target.value)}
            placeholder="my-store"
            autoComplete="off"
            spellCheck={false}
            aria-invalid={error ? "true" : undefined}
            aria-describedby="shop-error"
          />
          <span className="muted">.myshopify.com</span>
        </span>
        <span className="field-error" id="shop-error">
          {error ?? ""}
        </span>
      </label>
      <div className="button-row">
        <button type="submit" className="primary">
          {t("stores.connect")}
        </button>
      </div>
    </form>
  );
}

interface Draft {
  codOnly: boolean;
  codPaymentNames: string;
  tagConfirmed: string;
  tagCanceled: string;
  tagExpired: string;
  tagFailed: string;
  cancelOnCustomerCancel: boolean;
  cancelOnExpiry: boolean;
  holdFulfillmentUntilConfirmed: boolean;
  language: string;
}

// Field by field: the cached object also carries __typename, which the input type does not take.
const draftOf = (settings: Connection["settings"]): Draft => ({
  codOnly: settings.codOnly,
  cancelOnCustomerCancel: settings.cancelOnCustomerCancel,
  cancelOnExpiry: settings.cancelOnExpiry,
  holdFulfillmentUntilConfirmed: settings.holdFulfillmentUntilConfirmed,
  language: settings.language,
  codPaymentNames: settings.codPaymentNames.join(", "),
  tagConfirmed: settings.tagConfirmed ?? "",
  tagCanceled: settings.tagCanceled ?? "",
  tagExpired: settings.tagExpired ?? "",
  tagFailed: settings.tagFailed ?? "",
});

const fieldKey = (field: readonly string[] | null | undefined) => (field ?? []).filter((part) => part !== "input").join(".");

function StoreCard({ connection, canWrite, onChanged }: { connection: Connection; canWrite: boolean; onChanged(): void }) {
  const { t, language } = useI18n();
  const [draft, setDraft] = useState<Draft>(() => draftOf(connection.settings));
  const [errors, setErrors] = useState<{ field: string; message: string }[]>([]);
  const [message, setMessage] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [saving, update] = useMutation(UpdateStoreDocument);
  const [disconnecting, disconnect] = useMutation(DisconnectStoreDocument);
  const active = connection.status !== "DISCONNECTED";

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const input = {
      ...draft,
      codPaymentNames: draft.codPaymentNames.split(",").map((name) => name.trim()).filter(Boolean),
      tagConfirmed: draft.tagConfirmed.trim() || null,
      tagCanceled: draft.tagCanceled.trim() || null,
      tagExpired: draft.tagExpired.trim() || null,
      tagFailed: draft.tagFailed.trim() || null,
    };
    const outcome = await update({ id: connection.id, input });
    const userErrors = outcome.data?.updateStoreConnection.userErrors ?? [];
    setMessage(mutationErrorMessage(outcome.error, t));
    setErrors(userErrors.map((error) => ({ field: fieldKey(error.field), message: error.message })));
    if (!outcome.error && userErrors.length === 0) {
      setSaved(true);
      onChanged();
    }
  };
  const onDisconnect = async () => {
    const outcome = await disconnect({ id: connection.id });
    setMessage(mutationErrorMessage(outcome.error, t) ?? (outcome.data?.disconnectStore.userErrors.map((e) => e.message).join("; ") || null));
    setConfirming(false);
    onChanged();
  };
  const errorOf = (field: string) => errors.filter((error) => error.field === field).map((error) => error.message).join("; ");
  const text = (field: "tagConfirmed" | "tagCanceled" | "tagExpired" | "tagFailed" | "codPaymentNames", label: MessageKey) => (
    <label>
      {t(label)}
      <input
        name={field}
        dir="ltr"
        value={draft[field]}
        disabled={!canWrite}
        onChange={(event) => setDraft({ ...draft, [field]: event.target.value })}
        aria-invalid={errorOf(field) ? "true" : undefined}
      />
      <span className="field-error">{errorOf(field)}</span>
    </label>
  );
  const check = (field: "codOnly" | "cancelOnCustomerCancel" | "cancelOnExpiry" | "holdFulfillmentUntilConfirmed", label: MessageKey) => (
    <label className="inline">
      <input type="checkbox" name={field} checked={draft[field]} disabled={!canWrite} onChange={(event) => setDraft({ ...draft, [field]: event.target.checked })} />
      {t(label)}
    </label>
  );

  return (
    <li className="card store" data-connection-id={connection.id} data-status={connection.status}>
      <div className="endpoint-head">
        <h2 className="store-shop">
          <bdi dir="ltr">{connection.shop}</bdi>
        </h2>
        <span className={`badge ${connection.status === "ACTIVE" ? "badge-confirmed" : connection.status === "ERROR" ? "badge-failed" : "badge-canceled"}`} data-testid="store-status">
          {t(`stores.status.${connection.status}` as MessageKey)}
        </span>
      </div>
      <p className="small muted">
        {t(`stores.platform.${connection.platform}` as MessageKey)} · {t("stores.since", { date: formatDateTime(connection.createdAt, language) })}
        {connection.lastOrderAt ? ` · ${t("stores.lastOrder", { date: formatDateTime(connection.lastOrderAt, language) })}` : ""}
      </p>
      {message ? (
        <p className="error" role="alert">
          {message}
        </p>
      ) : null}
      {active ? (
        <form onSubmit={submit} noValidate aria-label={t("stores.settings")}>
          <fieldset>
            <legend>{t("stores.incoming")}</legend>
            {check("codOnly", "stores.codOnly")}
            {text("codPaymentNames", "stores.codPaymentNames")}
          </fieldset>
          <fieldset>
            <legend>{t("stores.writeback")}</legend>
            <div className="store-tags">
              {text("tagConfirmed", "stores.tagConfirmed")}
              {text("tagCanceled", "stores.tagCanceled")}
              {text("tagExpired", "stores.tagExpired")}
              {text("tagFailed", "stores.tagFailed")}
            </div>
            {check("cancelOnCustomerCancel", "stores.cancelOnCustomerCancel")}
            {check("cancelOnExpiry", "stores.cancelOnExpiry")}
            {connection.platform === "SHOPIFY" ? check("holdFulfillmentUntilConfirmed", "stores.hold") : <p className="small muted">{t("stores.notesHint")}</p>}
            <label>
              {t("stores.language")}
              <select name="language" value={draft.language} disabled={!canWrite} onChange={(event) => setDraft({ ...draft, language: event.target.value })}>
                <option value="en">English</option>
                <option value="ar">العربية</option>
              </select>
            </label>
          </fieldset>
          {canWrite ? (
            <div className="button-row">
              <button type="submit" className="primary" disabled={saving.fetching}>
                {t("stores.save")}
              </button>
              <button type="button" className="danger" onClick={() => setConfirming(true)}>
                {t("stores.disconnect")}
              </button>
              {saved ? (
                <span className="success" role="status">
                  {t("stores.saved")}
                </span>
              ) : null}
            </div>
          ) : null}
        </form>
      ) : null}
      <h3>{t("stores.activity")}</h3>
      {connection.activity.length === 0 ? <p className="empty">{t("stores.activityEmpty")}</p> : null}
      <ul className="store-activity" data-testid="store-activity">
        {connection.activity.map((entry, index) => (
          <li key={`${entry.at}-${index}`} data-kind={entry.kind}>
            <time className="muted small">{formatDateTime(entry.at, language)}</time> <span className="strong">{activityLabel(entry.kind, t)}</span>
            {entry.storeOrderId ? (
              <>
                {" "}
                <bdi dir="ltr">#{entry.storeOrderId}</bdi>
              </>
            ) : null}
            {reasonOf(entry.detail) ? <span className="muted"> — {t(`stores.reason.${reasonOf(entry.detail)}` as MessageKey)}</span> : null}
            {entry.orderId ? (
              <>
                {" "}
                <Link to={`/orders/${entry.orderId}`}>{t("stores.viewOrder")}</Link>
              </>
            ) : null}
          </li>
        ))}
      </ul>
      {confirming ? (
        <ConfirmDialog
          title={t("stores.disconnect")}
          message={t("stores.disconnectConfirm", { shop: connection.shop })}
          confirmLabel={t("stores.disconnect")}
          busy={disconnecting.fetching}
          onConfirm={onDisconnect}
          onClose={() => setConfirming(false)}
        />
      ) : null}
    </li>
  );
}

const KNOWN_KINDS = new Set([
  "order_created", "order_skipped", "writeback_succeeded", "writeback_failed", "writeback_retrying", "connected", "disconnected",
  "token_refreshed", "customer_redacted", "shop_redacted", "data_requested", "error", "webhook_created",
]);
const KNOWN_REASONS = new Set(["not_cod", "no_phone", "duplicate", "invalid"]);

function activityLabel(kind: string, t: ReturnType<typeof useI18n>["t"]): string {
  return KNOWN_KINDS.has(kind) ? t(`stores.kind.${kind}` as MessageKey) : kind;
}

function reasonOf(detail: unknown): string | null {
  const reason = (detail as { reason?: unknown } | null)?.reason;
  return typeof reason === "string" && KNOWN_REASONS.has(reason) ? reason : null;
}
