import type { ConversationMessage } from "../../domain/messaging/messaging-provider.ts";

/**
 * Bodies of `POST /{phone-number-id}/messages` for the conversation's free-form messages (Meta's "Text messages",
 * "Interactive reply buttons messages" and "Interactive list messages"), and the read receipt ("Mark messages as
 * read"). Meta's limits are applied here so a long merchant name or order reference never makes Meta refuse the
 * message: text body ≤ 4096, interactive body ≤ 1024, button title ≤ 20, list button ≤ 20, row title ≤ 24, row
 * description ≤ 72, at most 3 buttons and 10 rows.
 */
export const CONVERSATION_LIMITS = { text: 4096, interactiveBody: 1024, buttonTitle: 20, rowTitle: 24, rowDescription: 72, rows: 10 } as const;

/** Cut to `limit` characters (code points), with an ellipsis when cut. */
export function cut(text: string, limit: number): string {
  const chars = [...text];
  return chars.length <= limit ? text : `${chars.slice(0, limit - 1).join("")}…`;
}

export function buildConversationRequest(message: ConversationMessage): Record<string, unknown> {
  const base: Record<string, unknown> = {
    messaging_product: "whatsapp",
    recipient_type: "individual",
    to: `+${message.customerPhone}`,
    biz_opaque_callback_data: `order=${message.orderId};conversation=1`,
  };
  if (message.replyTo) base.context = { message_id: message.replyTo };
  const { content } = message;
  switch (content.type) {
    case "text":
      return { ...base, type: "text", text: { preview_url: false, body: cut(content.body, CONVERSATION_LIMITS.text) } };
    case "buttons":
      return {
        ...base,
        type: "interactive",
        interactive: {
          type: "button",
          body: { text: cut(content.body, CONVERSATION_LIMITS.interactiveBody) },
          action: {
            buttons: content.buttons.slice(0, 3).map((button) => ({
              type: "reply",
              reply: { id: button.id, title: cut(button.title, CONVERSATION_LIMITS.buttonTitle) },
            })),
          },
        },
      };
    case "list":
      return {
        ...base,
        type: "interactive",
        interactive: {
          type: "list",
          body: { text: cut(content.body, CONVERSATION_LIMITS.interactiveBody) },
          action: {
            button: cut(content.button, CONVERSATION_LIMITS.buttonTitle),
            sections: [
              {
                rows: content.rows.slice(0, CONVERSATION_LIMITS.rows).map((row) => ({
                  id: row.id,
                  title: cut(row.title, CONVERSATION_LIMITS.rowTitle),
                  description: cut(row.description, CONVERSATION_LIMITS.rowDescription),
                })),
              },
            ],
          },
        },
      };
  }
}

/** Marks an inbound message (and every earlier one of the chat) as read. */
export function buildMarkReadRequest(providerMessageId: string): Record<string, unknown> {
  return { messaging_product: "whatsapp", status: "read", message_id: providerMessageId };
}
