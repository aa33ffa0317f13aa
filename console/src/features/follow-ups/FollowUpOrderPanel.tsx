import { useState, type FormEvent } from "react";
import { Link } from "react-router";
import { useMutation, useQuery } from "urql";
import { graphql } from "../../gql/index.ts";
import type { AnswerChannel, CustomerAnswer } from "../../gql/graphql.ts";
import { en, type MessageKey } from "../../shared/i18n/messages.ts";
import { useI18n } from "../../shared/i18n/i18n.tsx";
import { useOrderEvents } from "../../shared/live-orders.tsx";
import { ErrorBanner, mutationErrorMessage } from "../../shared/ui/errors.tsx";
import { StatusBadge } from "../../shared/ui/StatusBadge.tsx";
import { telLink, whatsappLink } from "./contact-links.ts";
import { OrderConversation } from "../conversation/OrderConversation.tsx";

const FollowUpOrderQuery = graphql(`
  query FollowUpOrder($id: ID!) {
    order(id: $id) {
      ...OrderRowFields
      customerAddress
      items {
        id
        productName
        variantName
        quantity
      }
      timeline {
        at
        kind
        source
        detail
      }
    }
  }
`);

const RecordCustomerAnswerMutation = graphql(`
  mutation RecordCustomerAnswer($orderId: ID!, $action: CustomerAnswer!, $channel: AnswerChannel!, $note: String) {
    recordCustomerAnswer(orderId: $orderId, action: $action, channel: $channel, note: $note) {
      order {
        ...OrderRowFields
      }
      userErrors {
        code
        message
        field
      }
    }
  }
`);

const NOTE_MAX = 500;
const CHANNELS: AnswerChannel[] = ["PHONE", "IN_PERSON", "OTHER"];

/** The chosen order of the queue: who to call, what they ordered, what happened so far, and the answer form. */
export function FollowUpOrderPanel(props: { orderId: string; canAnswer: boolean; onAnswered(): void }) {
  const { t, dateTime, money, number } = useI18n();
  const [result, reexecute] = useQuery({ query: FollowUpOrderQuery, variables: { id: props.orderId }, requestPolicy: "cache-and-network" });
  const [recording, record] = useMutation(RecordCustomerAnswerMutation);
  const [action, setAction] = useState<CustomerAnswer | null>(null);
  const [channel, setChannel] = useState<AnswerChannel>("PHONE");
  const [note, setNote] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  useOrderEvents((event) => {
    if (event.order.id === props.orderId) reexecute({ requestPolicy: "network-only" });
  });

  const order = result.data?.order;
  if (result.data && !order) return <p className="empty card">{t("order.notFound", { mode: "" })}</p>;
  if (!order) return <ErrorBanner error={result.error} />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!action) return;
    setError(null);
    setSaved(null);
    const outcome = await record({ orderId: order.id, action, channel, note: note.trim() || null });
    const failure = mutationErrorMessage(outcome.error, t);
    if (failure) return setError(failure);
    const payload = outcome.data?.recordCustomerAnswer;
    if (payload?.userErrors.length) {
      setError(payload.userErrors[0].code === "ORDER_NOT_PENDING" ? t("answer.notPending") : payload.userErrors.map((e) => e.message).join("; "));
    } else if (payload?.order) {
      setSaved(t("answer.saved", { status: t(`status.${payload.order.status}`) }));
      setNote("");
      setAction(null);
    }
    reexecute({ requestPolicy: "network-only" });
    props.onAnswered();
  };

  const tel = telLink(order.customerPhone);
  const chat = whatsappLink(order.customerPhone);
  const pending = order.status === "PENDING";

  return (
    <article className="card desk-order" data-testid="follow-up-order" data-status={order.status} aria-labelledby="desk-order-title">
      <div className="page-head">
        <h2 id="desk-order-title">
          {order.customerName} · <bdi dir="ltr">{order.externalOrderId}</bdi>
        </h2>
        <StatusBadge status={order.status} />
      </div>
      <div className="button-row">
        {tel ? (
          <a className="button-link primary-link" href={tel}>
            {t("followUps.call")} <bdi dir="ltr">+{order.customerPhone}</bdi>
          </a>
        ) : null}
        {chat ? (
          <a className="button-link" href={chat} target="_blank" rel="noopener noreferrer">
            {t("followUps.whatsapp")}
          </a>
        ) : null}
        <Link className="button-link" to={`/orders/${order.id}`}>
          {t("followUps.open")}
        </Link>
      </div>
      <dl className="facts">
        <dt>{t("order.address")}</dt>
        <dd dir="auto">{order.customerAddress ?? t("common.none")}</dd>
        <dt>{t("order.total")}</dt>
        <dd>{money(order.totalCost, order.currency)}</dd>
        <dt>{t("order.items")}</dt>
        <dd>
          {order.items.map((item) => (
            <div key={item.id} dir="auto">
              {number(item.quantity)} × {item.productName}
              {item.variantName ? <span className="muted"> · {item.variantName}</span> : null}
            </div>
          ))}
        </dd>
        <dt>{t("order.created")}</dt>
        <dd>{dateTime(order.createdAt)}</dd>
      </dl>

      {props.canAnswer && pending ? (
        <form className="answer-form" onSubmit={submit} data-testid="answer-form" aria-labelledby="answer-title">
          <h3 id="answer-title">{t("answer.title")}</h3>
          <p className="muted small">{t("answer.hint")}</p>
          <fieldset>
            <legend>{t("answer.action")}</legend>
            {(["APPROVE", "CANCEL"] as CustomerAnswer[]).map((value) => (
              <label key={value} className="inline">
                <input type="radio" name="answer-action" value={value} checked={action === value} onChange={() => setAction(value)} required />
                {t(value === "APPROVE" ? "answer.approve" : "answer.cancel")}
              </label>
            ))}
          </fieldset>
          <label>
            {t("answer.channel")}
            <select name="answer-channel" value={channel} onChange={(e) => setChannel(e.target.value as AnswerChannel)}>
              {CHANNELS.map((value) => (
                <option key={value} value={value}>
                  {t(`answer.channel.${value}` as MessageKey)}
                </option>
              ))}
            </select>
          </label>
          <label>
            {t("answer.note")}
            <textarea name="answer-note" dir="auto" rows={3} maxLength={NOTE_MAX} value={note} onChange={(e) => setNote(e.target.value)} />
            <span className="muted small" aria-live="polite">
              {t("answer.noteLeft", { count: NOTE_MAX - note.length })}
            </span>
          </label>
          {error ? (
            <p className="error" role="alert">
              {error}
            </p>
          ) : null}
          <button type="submit" className="primary" disabled={!action || recording.fetching}>
            {recording.fetching ? t("answer.saving") : t("answer.submit")}
          </button>
        </form>
      ) : null}
      {saved ? (
        <p className="success" role="status" data-testid="answer-saved">
          {saved}
        </p>
      ) : null}

      <h3>{t("followUps.conversation")}</h3>
      <OrderConversation orderId={order.id} />
      <h3>{t("order.timeline")}</h3>
      <TimelineList steps={order.timeline} />
    </article>
  );
}

/** The order's steps with who did it and how (an answer recorded by phone shows who recorded it and the note). */
export function TimelineList(props: { steps: readonly { at: string; kind: string; source: string; detail?: Record<string, unknown> | null }[] }) {
  const { t, dateTime } = useI18n();
  if (props.steps.length === 0) return <p className="muted">{t("order.timelineEmpty")}</p>;
  return (
    <ol className="timeline" data-testid="timeline">
      {props.steps.map((step, index) => {
        const detail = step.detail ?? {};
        const via = typeof detail.via === "string" && ["phone", "in_person", "other"].includes(detail.via) ? t(`via.${detail.via}` as MessageKey) : null;
        return (
          <li key={`${step.at}-${index}`} data-kind={step.kind}>
            <span className="timeline-kind">{label(`timeline.${step.kind}`, step.kind, t)}</span>
            <span className="muted small">
              {" "}
              · {label(`source.${step.source}`, step.source, t)}
              {via ? ` · ${t("timeline.via", { via })}` : ""}
              {typeof detail.by === "string" ? (
                <>
                  {" · "}
                  {t("timeline.by", { by: "" })}
                  <bdi>{detail.by}</bdi>
                </>
              ) : null}{" "}
              · {dateTime(step.at)}
            </span>
            {typeof detail.note === "string" ? (
              <div className="small timeline-note" dir="auto">
                “{detail.note}”
              </div>
            ) : null}
          </li>
        );
      })}
    </ol>
  );
}

/** A known kind or source in the user's language; one this console does not know yet as the server sent it. */
function label(key: string, fallback: string, t: (key: MessageKey) => string): string {
  return key in en ? t(key as MessageKey) : fallback;
}
