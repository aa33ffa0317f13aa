import { useEffect, useRef, useState, type FormEvent } from "react";
import { useMutation, useQuery, useSubscription } from "urql";
import { graphql } from "../../gql/index.ts";
import type { MessageKey } from "../../shared/i18n/messages.ts";
import { useI18n } from "../../shared/i18n/i18n.tsx";
import { useOnReconnect, useOrderEvents } from "../../shared/live-orders.tsx";
import { useViewer } from "../../shared/session/viewer.tsx";
import { ErrorBanner, mutationErrorMessage } from "../../shared/ui/errors.tsx";
import { NEEDS_REPLY_CHANGED } from "./NeedsReplyCount.tsx";

const ConversationQuery = graphql(`
  query OrderConversation($id: ID!) {
    order(id: $id) {
      id
      messages {
        id
        direction
        sender
        kind
        text
        at
        status
      }
      conversationWindow {
        open
        closesAt
        lastCustomerMessageAt
      }
    }
  }
`);

const MessageReceivedSubscription = graphql(`
  subscription OrderMessageReceived($orderId: ID) {
    orderMessageReceived(orderId: $orderId) {
      timestamp
      message {
        id
      }
    }
  }
`);

const SendMessageMutation = graphql(`
  mutation SendOrderMessage($orderId: ID!, $text: String!) {
    sendOrderMessage(orderId: $orderId, text: $text) {
      message {
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

/** Automatic replies and delivery receipts raise no event: the conversation is read again this often while shown. */
const REFRESH_MS = 10_000;
const MAX_TEXT = 4096;

/**
 * The order's conversation (SPEC §11), live: every message sent and received, and a reply box that is open only
 * while the customer's 24-hour WhatsApp window is (with the time left), disabled with the reason otherwise.
 */
export function OrderConversation({ orderId }: { orderId: string }) {
  const { t, dateTime } = useI18n();
  const viewer = useViewer();
  const [result, reexecute] = useQuery({ query: ConversationQuery, variables: { id: orderId }, requestPolicy: "cache-and-network" });
  const refresh = () => reexecute({ requestPolicy: "network-only" });
  useSubscription({ query: MessageReceivedSubscription, variables: { orderId } }, (_previous, data) => {
    refresh();
    return data;
  });
  useOrderEvents((event) => {
    if (event.order.id === orderId) refresh();
  });
  useOnReconnect(refresh);
  useEffect(() => {
    const timer = setInterval(refresh, REFRESH_MS);
    return () => clearInterval(timer);
  }, [orderId]); // eslint-disable-line react-hooks/exhaustive-deps
  const now = useNow();
  // The newest message in view, as in a chat, whenever one arrives.
  const list = useRef<HTMLOListElement>(null);
  const count = result.data?.order?.messages.length ?? 0;
  useEffect(() => {
    if (list.current) list.current.scrollTop = list.current.scrollHeight;
  }, [count]);

  const [sendState, send] = useMutation(SendMessageMutation);
  const [text, setText] = useState("");
  const [sendError, setSendError] = useState<string | null>(null);

  const order = result.data?.order;
  if (!order) return <ErrorBanner error={result.error} />;
  const serviceWindow = order.conversationWindow;
  const closesAt = serviceWindow.closesAt ? new Date(serviceWindow.closesAt).getTime() : 0;
  const open = serviceWindow.open && closesAt > now;

  const onSend = async (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim()) return;
    setSendError(null);
    const outcome = await send({ orderId, text });
    const message = mutationErrorMessage(outcome.error, t) ?? outcome.data?.sendOrderMessage.userErrors.map((e) => e.message).join("; ");
    if (message) {
      setSendError(message);
    } else {
      setText("");
      // The order no longer needs a reply: the header's count reads itself again.
      window.dispatchEvent(new Event(NEEDS_REPLY_CHANGED));
    }
    refresh();
  };

  let reason: string | null = null;
  if (!viewer.canWrite) reason = t("conversation.viewerCannotReply");
  else if (!serviceWindow.lastCustomerMessageAt) reason = t("conversation.closedNever");
  else if (!open) reason = t("conversation.closed", { at: dateTime(serviceWindow.closesAt!) });

  return (
    <div className="conversation" data-testid="conversation">
      <ol className="conversation-list" aria-live="polite" ref={list}>
        {order.messages.map((message) => (
          <li
            key={message.id}
            className={`conversation-message ${message.direction === "INBOUND" ? "from-customer" : "to-customer"} sender-${message.sender.toLowerCase()}`}
            data-kind={message.kind}
            data-sender={message.sender}
          >
            <div className="conversation-head small muted">
              <span>{t(`conversation.sender.${message.sender}` as MessageKey)}</span>
              <span> · {t(`conversation.kind.${message.kind}` as MessageKey)}</span>
              <span> · {dateTime(message.at)}</span>
              {message.status ? <span data-testid="message-status"> · {statusLabel(message.status, t)}</span> : null}
            </div>
            <p className="conversation-text" dir="auto">
              {message.text ?? ""}
            </p>
          </li>
        ))}
      </ol>
      <form className="reply-form" onSubmit={onSend} data-testid="reply-form">
        <label htmlFor={`reply-${orderId}`} className="small">
          {t("conversation.replyLabel")}
        </label>
        <textarea
          id={`reply-${orderId}`}
          dir="auto"
          rows={3}
          maxLength={MAX_TEXT}
          value={text}
          disabled={reason !== null || sendState.fetching}
          onChange={(event) => setText(event.target.value)}
        />
        <div className="reply-actions">
          <p className="small muted" data-testid="window-state" data-open={reason === null}>
            {reason ?? t("conversation.open", { left: timeLeft(closesAt - now, t) })}
          </p>
          <button type="submit" className="primary" disabled={reason !== null || sendState.fetching || !text.trim()}>
            {sendState.fetching ? t("conversation.sending") : t("conversation.send")}
          </button>
        </div>
        {sendError ? (
          <p className="error-text small" role="alert">
            {sendError}
          </p>
        ) : null}
      </form>
    </div>
  );
}

/** The clock, moved on every 30 s: the time left and the closing of the window follow it without a reload. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

function timeLeft(ms: number, t: (key: MessageKey, params?: Record<string, string | number>) => string): string {
  const minutes = Math.max(1, Math.floor(ms / 60_000));
  const hours = Math.floor(minutes / 60);
  return hours > 0 ? t("conversation.hoursLeft", { hours, minutes: minutes % 60 }) : t("conversation.minutesLeft", { minutes });
}

function statusLabel(status: string, t: (key: MessageKey) => string): string {
  return ["sent", "delivered", "read", "failed"].includes(status) ? t(`conversation.status.${status}` as MessageKey) : status;
}
