import { useCallback, useState, type FormEvent } from "react";
import { useMutation, useQuery } from "urql";
import { graphql } from "../../gql/index.ts";
import type { WebhookDeliveryStatus } from "../../gql/graphql.ts";
import { useI18n } from "../../shared/i18n/i18n.tsx";
import { useViewer } from "../../shared/session/viewer.tsx";
import { ConfirmDialog, Dialog, SecretDialog } from "../../shared/ui/Dialog.tsx";
import { ErrorBanner, mutationErrorMessage } from "../../shared/ui/errors.tsx";
import { Pager } from "../../shared/ui/Pager.tsx";
import { DeliveryList } from "./DeliveryList.tsx";

const EVENTS = ["order.created", "order.confirmed", "order.canceled", "order.failed", "order.expired"];
const DELIVERY_STATUSES: WebhookDeliveryStatus[] = ["PENDING", "SUCCEEDED", "DEAD"];

const EndpointsQuery = graphql(`
  query WebhookEndpoints {
    webhookEndpoints {
      id
      url
      description
      events
      enabled
      disabledReason
      previousSecretExpiresAt
      createdAt
    }
  }
`);

const DeliveriesQuery = graphql(`
  query WebhookDeliveries($after: String, $filter: WebhookDeliveryFilter) {
    webhookDeliveries(first: 20, after: $after, filter: $filter) {
      edges {
        node {
          ...DeliveryFields
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

const CreateEndpointMutation = graphql(`
  mutation CreateWebhookEndpoint($input: CreateWebhookEndpointInput!) {
    createWebhookEndpoint(input: $input) {
      secret
      endpoint {
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

const UpdateEndpointMutation = graphql(`
  mutation UpdateWebhookEndpoint($id: ID!, $input: UpdateWebhookEndpointInput!) {
    updateWebhookEndpoint(id: $id, input: $input) {
      endpoint {
        id
        events
        enabled
        disabledReason
      }
      userErrors {
        code
        message
        field
      }
    }
  }
`);

const RotateSecretMutation = graphql(`
  mutation RotateWebhookEndpointSecret($id: ID!) {
    rotateWebhookEndpointSecret(id: $id) {
      secret
      userErrors {
        code
        message
      }
    }
  }
`);

const DeleteEndpointMutation = graphql(`
  mutation DeleteWebhookEndpoint($id: ID!) {
    deleteWebhookEndpoint(id: $id) {
      deletedId
      userErrors {
        code
        message
      }
    }
  }
`);

type Confirmation = { kind: "rotate" | "delete"; id: string; url: string };

export function WebhooksPage() {
  const { t } = useI18n();
  const viewer = useViewer();
  const [endpoints, refetchEndpoints] = useQuery({ query: EndpointsQuery, requestPolicy: "cache-and-network" });
  const [, updateEndpoint] = useMutation(UpdateEndpointMutation);
  const [, rotateSecret] = useMutation(RotateSecretMutation);
  const [, deleteEndpoint] = useMutation(DeleteEndpointMutation);
  const [secret, setSecret] = useState<{ title: string; value: string } | null>(null);
  const [confirmation, setConfirmation] = useState<Confirmation | null>(null);
  const [editing, setEditing] = useState<{ id: string; events: string[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const refresh = () => refetchEndpoints({ requestPolicy: "network-only" });

  const report = (outcome: { error?: Parameters<typeof mutationErrorMessage>[0] }, userErrors: { message: string }[] | undefined) => {
    const message = mutationErrorMessage(outcome.error, t) ?? (userErrors?.length ? userErrors.map((e) => e.message).join("; ") : null);
    setError(message);
    return !message;
  };

  const onToggle = async (id: string, enabled: boolean) => {
    const outcome = await updateEndpoint({ id, input: { enabled } });
    if (report(outcome, outcome.data?.updateWebhookEndpoint.userErrors)) refresh();
  };
  const onConfirm = async () => {
    if (!confirmation) return;
    if (confirmation.kind === "rotate") {
      const outcome = await rotateSecret({ id: confirmation.id });
      if (report(outcome, outcome.data?.rotateWebhookEndpointSecret.userErrors) && outcome.data?.rotateWebhookEndpointSecret.secret) {
        setSecret({ title: t("webhooks.rotated.title"), value: outcome.data.rotateWebhookEndpointSecret.secret });
      }
    } else {
      const outcome = await deleteEndpoint({ id: confirmation.id });
      report(outcome, outcome.data?.deleteWebhookEndpoint.userErrors);
    }
    setConfirmation(null);
    refresh();
  };
  const onSaveEvents = async () => {
    if (!editing) return;
    const outcome = await updateEndpoint({ id: editing.id, input: { events: editing.events } });
    if (report(outcome, outcome.data?.updateWebhookEndpoint.userErrors)) {
      setEditing(null);
      refresh();
    }
  };

  const list = endpoints.data?.webhookEndpoints ?? [];
  return (
    <section aria-labelledby="webhooks-title">
      <div className="page-head">
        <h1 id="webhooks-title">{t("webhooks.title")}</h1>
      </div>
      <p className="muted">{t("webhooks.intro")}</p>
      <ErrorBanner error={endpoints.error} />
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      {viewer.canWrite ? (
        <CreateEndpointForm
          onCreated={(value) => {
            setSecret({ title: t("webhooks.created.title"), value });
            refresh();
          }}
        />
      ) : null}
      <h2>{t("webhooks.endpoints")}</h2>
      {endpoints.data && list.length === 0 ? <p className="empty">{t("webhooks.empty")}</p> : null}
      <ul className="endpoints" data-testid="endpoints">
        {list.map((endpoint) => (
          <li key={endpoint.id} className="card endpoint" data-endpoint-id={endpoint.id} data-enabled={String(endpoint.enabled)}>
            <div className="endpoint-head">
              <code dir="ltr" className="endpoint-url">
                {endpoint.url}
              </code>
              <span className={`badge ${endpoint.enabled ? "badge-confirmed" : "badge-canceled"}`}>
                {endpoint.enabled ? t("webhooks.enabled") : t("webhooks.disabled")}
              </span>
            </div>
            {endpoint.description ? <p>{endpoint.description}</p> : null}
            {endpoint.disabledReason ? <p className="error-text small">{t("webhooks.disabledReason", { reason: endpoint.disabledReason })}</p> : null}
            <p className="small">
              {t("webhooks.events")}:{" "}
              <span dir="ltr">{endpoint.events.length === 0 || endpoint.events.length >= EVENTS.length ? t("webhooks.allEvents") : endpoint.events.join(", ")}</span>
            </p>
            {viewer.canWrite ? (
              <div className="button-row">
                <button type="button" className="small-button" onClick={() => onToggle(endpoint.id, !endpoint.enabled)}>
                  {endpoint.enabled ? t("webhooks.disable") : t("webhooks.enable")}
                </button>
                <button type="button" className="small-button" onClick={() => setEditing({ id: endpoint.id, events: endpoint.events.length ? endpoint.events : EVENTS })}>
                  {t("webhooks.editEvents")}
                </button>
                <button type="button" className="small-button" onClick={() => setConfirmation({ kind: "rotate", id: endpoint.id, url: endpoint.url })}>
                  {t("webhooks.rotate")}
                </button>
                <button type="button" className="small-button danger" onClick={() => setConfirmation({ kind: "delete", id: endpoint.id, url: endpoint.url })}>
                  {t("webhooks.delete")}
                </button>
              </div>
            ) : null}
          </li>
        ))}
      </ul>

      <DeliveryLog endpoints={list} />

      {secret ? <SecretDialog title={secret.title} secret={secret.value} onClose={() => setSecret(null)} /> : null}
      {confirmation ? (
        <ConfirmDialog
          title={confirmation.kind === "rotate" ? t("webhooks.rotate") : t("webhooks.delete")}
          message={confirmation.kind === "rotate" ? t("webhooks.rotateConfirm") : t("webhooks.deleteConfirm", { url: confirmation.url })}
          confirmLabel={confirmation.kind === "rotate" ? t("webhooks.rotate") : t("webhooks.delete")}
          onConfirm={onConfirm}
          onClose={() => setConfirmation(null)}
        />
      ) : null}
      {editing ? (
        <Dialog title={t("webhooks.editEvents")} onClose={() => setEditing(null)}>
          <EventChoices value={editing.events} onChange={(events) => setEditing({ ...editing, events })} />
          <div className="dialog-actions">
            <button type="button" onClick={() => setEditing(null)}>
              {t("common.cancel")}
            </button>
            <button type="button" className="primary" disabled={editing.events.length === 0} onClick={onSaveEvents}>
              {t("common.save")}
            </button>
          </div>
        </Dialog>
      ) : null}
    </section>
  );
}

function EventChoices(props: { value: string[]; onChange(events: string[]): void }) {
  const { t } = useI18n();
  return (
    <fieldset className="event-choices">
      <legend>{t("webhooks.events")}</legend>
      {EVENTS.map((event) => (
        <label key={event} className="inline">
          <input
            type="checkbox"
            name="events"
            value={event}
            checked={props.value.includes(event)}
            onChange={(e) => props.onChange(e.target.checked ? [...props.value, event] : props.value.filter((v) => v !== event))}
          />
          <code dir="ltr">{event}</code>
        </label>
      ))}
    </fieldset>
  );
}

function CreateEndpointForm(props: { onCreated(secret: string): void }) {
  const { t } = useI18n();
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [events, setEvents] = useState<string[]>(EVENTS);
  const [state, createEndpoint] = useMutation(CreateEndpointMutation);
  const [errors, setErrors] = useState<{ field: string; message: string }[]>([]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const outcome = await createEndpoint({
      input: { url, description: description || undefined, events: events.length === EVENTS.length ? undefined : events },
    });
    const failure = mutationErrorMessage(outcome.error, t);
    if (failure) return setErrors([{ field: "", message: failure }]);
    const userErrors = outcome.data?.createWebhookEndpoint.userErrors ?? [];
    setErrors(userErrors.map((e) => ({ field: (e.field ?? []).slice(1).join("."), message: e.message })));
    const secret = outcome.data?.createWebhookEndpoint.secret;
    if (secret) {
      setUrl("");
      setDescription("");
      props.onCreated(secret);
    }
  };
  const errorFor = (field: string) => errors.filter((e) => e.field === field).map((e) => e.message).join("; ");
  const general = errors.filter((e) => !["url", "description", "events"].includes(e.field.split(".")[0]));

  return (
    <form className="card form" onSubmit={submit} data-testid="create-endpoint">
      <h2>{t("webhooks.create")}</h2>
      <label>
        {t("webhooks.url")}
        <input type="url" name="url" dir="ltr" required value={url} onChange={(e) => setUrl(e.target.value)} aria-invalid={errorFor("url") ? true : undefined} aria-describedby="endpoint-url-error" />
        <span className="field-error" id="endpoint-url-error">
          {errorFor("url")}
        </span>
      </label>
      <label>
        {t("webhooks.description")}
        <input type="text" name="description" value={description} onChange={(e) => setDescription(e.target.value)} />
        <span className="field-error">{errorFor("description")}</span>
      </label>
      <EventChoices value={events} onChange={setEvents} />
      <span className="field-error">{errorFor("events")}</span>
      {general.length ? (
        <p className="error" role="alert">
          {general.map((e) => e.message).join("; ")}
        </p>
      ) : null}
      <button type="submit" className="primary" disabled={state.fetching || !url || events.length === 0}>
        {state.fetching ? t("webhooks.creating") : t("webhooks.create")}
      </button>
    </form>
  );
}

function DeliveryLog(props: { endpoints: { id: string; url: string }[] }) {
  const { t } = useI18n();
  const [status, setStatus] = useState<WebhookDeliveryStatus | "">("");
  const [endpointId, setEndpointId] = useState("");
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const after = cursors[cursors.length - 1];
  const [result, reexecute] = useQuery({
    query: DeliveriesQuery,
    variables: { after, filter: { status: status ? [status] : undefined, endpointId: endpointId || undefined } },
    requestPolicy: "cache-and-network",
  });
  const refresh = useCallback(() => reexecute({ requestPolicy: "network-only" }), [reexecute]);
  const deliveries = result.data?.webhookDeliveries.edges.map((edge) => edge.node) ?? [];
  const pageInfo = result.data?.webhookDeliveries.pageInfo;
  const urlOf = (id: string) => props.endpoints.find((endpoint) => endpoint.id === id)?.url;

  return (
    <section aria-labelledby="deliveries-title" className="card">
      <h2 id="deliveries-title">{t("webhooks.deliveries")}</h2>
      <div className="filters">
        <label>
          {t("deliveries.status")}
          <select value={status} onChange={(e) => (setStatus(e.target.value as WebhookDeliveryStatus | ""), setCursors([null]))}>
            <option value="">{t("webhooks.filter.anyStatus")}</option>
            {DELIVERY_STATUSES.map((value) => (
              <option key={value} value={value}>
                {t(`deliveryStatus.${value}`)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t("webhooks.filter.endpoint")}
          <select value={endpointId} onChange={(e) => (setEndpointId(e.target.value), setCursors([null]))}>
            <option value="">{t("webhooks.filter.anyEndpoint")}</option>
            {props.endpoints.map((endpoint) => (
              <option key={endpoint.id} value={endpoint.id}>
                {endpoint.url}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorBanner error={result.error} />
      <DeliveryList deliveries={deliveries} empty={t("webhooks.deliveriesEmpty")} showOrder endpointUrl={urlOf} onRefresh={refresh} />
      <Pager
        page={cursors.length}
        hasPrevious={cursors.length > 1}
        hasNext={Boolean(pageInfo?.hasNextPage)}
        onPrevious={() => setCursors(cursors.slice(0, -1))}
        onNext={() => setCursors([...cursors, pageInfo?.endCursor ?? null])}
      />
    </section>
  );
}
