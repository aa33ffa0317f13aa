import { z } from "zod";

/**
 * An answer the customer gave outside WhatsApp (SPEC §15), recorded by the merchant's team: REST's body and the
 * GraphQL arguments are checked with the same schema. See OrderService.recordCustomerAnswer.
 */
export const ANSWER_CHANNELS = ["phone", "in_person", "other"] as const;
export type AnswerChannel = (typeof ANSWER_CHANNELS)[number];

export const MAX_ANSWER_NOTE_LENGTH = 500;

export const answerNote = z
  .string()
  .refine((text) => !text.includes("\u0000"), { error: "i18n:format.no_nul", abort: true })
  .trim()
  .max(MAX_ANSWER_NOTE_LENGTH)
  .nullable()
  .optional()
  .meta({ description: "What was said, for the team (up to 500 characters)" });

export const customerAnswerInput = z
  .object({
    action: z.enum(["approve", "cancel"]).meta({ description: "What the customer said: approve or cancel the order" }),
    channel: z.enum(ANSWER_CHANNELS).meta({ description: "How the customer answered: phone, in_person or other" }),
    note: answerNote,
  })
  .meta({ id: "CustomerAnswer" });

/** An answer as recorded: what, how, a note, and who recorded it (the user's e-mail or the API key's prefix). */
export interface RecordedAnswer {
  action: "approve" | "cancel";
  channel: AnswerChannel;
  note: string | null;
  by: string;
}
