import { z } from "zod";
import { isStorableText } from "../domain/storable.ts";

/** A message's text: 1–4,096 characters (WhatsApp's limit), not only spaces, no NUL or unpaired surrogate. */
export const messageTextBody = z.object({
  text: z
    .string()
    .min(1)
    .max(4096)
    .refine((text) => text.trim().length > 0, { error: "i18n:format.blank" })
    .refine(isStorableText, { error: "i18n:format.text" })
    .meta({ description: "1–4096 characters" }),
});
