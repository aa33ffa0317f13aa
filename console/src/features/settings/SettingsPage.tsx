import { useEffect, useState, type FormEvent } from "react";
import { useMutation, useQuery } from "urql";
import { graphql } from "../../gql/index.ts";
import { useI18n } from "../../shared/i18n/i18n.tsx";
import { useViewer } from "../../shared/session/viewer.tsx";
import { ErrorBanner, mutationErrorMessage } from "../../shared/ui/errors.tsx";

const PolicyQuery = graphql(`
  query ConfirmationPolicy {
    confirmationPolicy {
      reminders
      expireAfter
      quietHours {
        start
        end
        timeZone
      }
      smsFallback {
        errorCodes
      }
      followUpAfter
    }
  }
`);

const UpdatePolicyMutation = graphql(`
  mutation UpdateConfirmationPolicy($input: ConfirmationPolicyInput!) {
    updateConfirmationPolicy(input: $input) {
      policy {
        reminders
        expireAfter
        quietHours {
          start
          end
          timeZone
        }
        smsFallback {
          errorCodes
        }
        followUpAfter
      }
      userErrors {
        code
        message
        field
      }
    }
  }
`);

interface Draft {
  reminders: [string, string, string];
  expireAfter: string;
  quiet: boolean;
  start: string;
  end: string;
  timeZone: string;
  sms: boolean;
  smsCodes: string;
  followUpAfter: string;
}

/** A userError's field path without the leading "input": "reminders.1", "quietHours.timeZone". */
const fieldKey = (field: readonly string[] | null | undefined) => (field ?? []).filter((part) => part !== "input").join(".");

export function SettingsPage() {
  const { t, timeZone } = useI18n();
  const viewer = useViewer();
  const [result] = useQuery({ query: PolicyQuery, requestPolicy: "cache-and-network" });
  const [saving, update] = useMutation(UpdatePolicyMutation);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [errors, setErrors] = useState<{ field: string; message: string }[]>([]);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    const policy = result.data?.confirmationPolicy;
    if (!policy) return;
    setDraft({
      reminders: [policy.reminders[0] ?? "", policy.reminders[1] ?? "", policy.reminders[2] ?? ""],
      expireAfter: policy.expireAfter ?? "",
      quiet: Boolean(policy.quietHours),
      start: policy.quietHours?.start ?? "22:00",
      end: policy.quietHours?.end ?? "08:00",
      timeZone: policy.quietHours?.timeZone ?? timeZone,
      sms: Boolean(policy.smsFallback),
      smsCodes: (policy.smsFallback?.errorCodes ?? [131026]).join(", "),
      followUpAfter: policy.followUpAfter,
    });
  }, [result.data, timeZone]);

  if (!draft) return <ErrorBanner error={result.error} />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    // Codes are numbers: say so in the merchant's words rather than sending something the server can only refuse.
    if (draft.sms && smsCodesOf(draft.smsCodes).some((code) => code === 0)) {
      return setErrors([{ field: "smsFallback.errorCodes", message: t("settings.smsFallbackCodesInvalid") }]);
    }
    const outcome = await update({
      input: {
        reminders: draft.reminders.map((r) => r.trim()).filter(Boolean),
        expireAfter: draft.expireAfter.trim() || null,
        quietHours: draft.quiet ? { start: draft.start, end: draft.end, timeZone: draft.timeZone } : null,
        smsFallback: draft.sms ? { errorCodes: smsCodesOf(draft.smsCodes) } : null,
        followUpAfter: draft.followUpAfter.trim() || null,
      },
    });
    const failure = mutationErrorMessage(outcome.error, t);
    if (failure) return setErrors([{ field: "", message: failure }]);
    const userErrors = outcome.data?.updateConfirmationPolicy.userErrors ?? [];
    setErrors(userErrors.map((e) => ({ field: fieldKey(e.field), message: e.message })));
    setSaved(userErrors.length === 0);
  };
  const errorFor = (field: string) => errors.filter((e) => e.field === field).map((e) => e.message).join("; ");
  const shown = new Set(["reminders", "reminders.0", "reminders.1", "reminders.2", "expireAfter", "quietHours", "quietHours.start", "quietHours.end", "quietHours.timeZone", "followUpAfter"]);
  const isSmsField = (field: string) => field === "smsFallback" || field.startsWith("smsFallback.");
  const smsErrors = errors.filter((e) => isSmsField(e.field)).map((e) => e.message).join("; ");
  const general = errors.filter((e) => !shown.has(e.field) && !isSmsField(e.field));
  const readOnly = !viewer.canWrite;
  const modeName = t(viewer.mode === "LIVE" ? "mode.live" : "mode.test");

  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">{t("settings.title")}</h1>
      <form className="card form" onSubmit={submit} data-testid="policy-form">
        <h2>{t("settings.policy")}</h2>
        <p className="muted">{t("settings.policyIntro", { mode: modeName })}</p>
        {readOnly ? <p className="muted">{t("settings.readOnly")}</p> : null}
        <fieldset disabled={readOnly}>
          <legend>{t("settings.reminders")}</legend>
          <p className="muted small">{t("settings.reminderHint")}</p>
          {[0, 1, 2].map((index) => (
            <label key={index}>
              {t("settings.reminder", { n: index + 1 })}
              <input
                name={`reminder-${index}`}
                dir="ltr"
                value={draft.reminders[index]}
                aria-invalid={errorFor(`reminders.${index}`) ? true : undefined}
                onChange={(e) => {
                  const reminders = [...draft.reminders] as Draft["reminders"];
                  reminders[index] = e.target.value;
                  setDraft({ ...draft, reminders });
                }}
              />
              <span className="field-error" data-field={`reminders.${index}`}>
                {errorFor(`reminders.${index}`)}
              </span>
            </label>
          ))}
          <span className="field-error" data-field="reminders">
            {errorFor("reminders")}
          </span>
        </fieldset>
        <fieldset disabled={readOnly}>
          <legend>{t("settings.expireAfter")}</legend>
          <label>
            {t("settings.expireAfter")}
            <input name="expireAfter" dir="ltr" value={draft.expireAfter} aria-invalid={errorFor("expireAfter") ? true : undefined} onChange={(e) => setDraft({ ...draft, expireAfter: e.target.value })} />
            <span className="muted small">{t("settings.expireAfterHint")}</span>
            <span className="field-error" data-field="expireAfter">
              {errorFor("expireAfter")}
            </span>
          </label>
        </fieldset>
        <fieldset disabled={readOnly}>
          <legend>{t("settings.quietHours")}</legend>
          <label className="inline">
            <input type="checkbox" name="quiet" checked={draft.quiet} onChange={(e) => setDraft({ ...draft, quiet: e.target.checked })} />
            {t("settings.quietHoursEnabled")}
          </label>
          {draft.quiet ? (
            <div className="row">
              <label>
                {t("settings.quietStart")}
                <input name="quietStart" dir="ltr" value={draft.start} onChange={(e) => setDraft({ ...draft, start: e.target.value })} />
                <span className="field-error" data-field="quietHours.start">
                  {errorFor("quietHours.start")}
                </span>
              </label>
              <label>
                {t("settings.quietEnd")}
                <input name="quietEnd" dir="ltr" value={draft.end} onChange={(e) => setDraft({ ...draft, end: e.target.value })} />
                <span className="field-error" data-field="quietHours.end">
                  {errorFor("quietHours.end")}
                </span>
              </label>
              <label>
                {t("settings.timeZone")}
                <input name="timeZone" dir="ltr" value={draft.timeZone} onChange={(e) => setDraft({ ...draft, timeZone: e.target.value })} />
                <span className="field-error" data-field="quietHours.timeZone">
                  {errorFor("quietHours.timeZone")}
                </span>
              </label>
            </div>
          ) : null}
          <span className="field-error" data-field="quietHours">
            {errorFor("quietHours")}
          </span>
        </fieldset>
        <fieldset disabled={readOnly}>
          <legend>{t("settings.smsFallback")}</legend>
          <label className="inline">
            <input type="checkbox" name="smsFallback" checked={draft.sms} onChange={(e) => setDraft({ ...draft, sms: e.target.checked })} />
            {t("settings.smsFallbackEnabled")}
          </label>
          {draft.sms ? (
            <label>
              {t("settings.smsFallbackCodes")}
              <input
                name="smsFallbackCodes"
                dir="ltr"
                inputMode="numeric"
                value={draft.smsCodes}
                aria-invalid={smsErrors ? true : undefined}
                onChange={(e) => setDraft({ ...draft, smsCodes: e.target.value })}
              />
              <span className="muted small">{t("settings.smsFallbackHint")}</span>
            </label>
          ) : null}
          <span className="field-error" data-field="smsFallback.errorCodes">
            {smsErrors}
          </span>
        </fieldset>
        <fieldset disabled={readOnly}>
          <legend>{t("settings.followUpAfter")}</legend>
          <label>
            {t("settings.followUpAfter")}
            <input name="followUpAfter" dir="ltr" value={draft.followUpAfter} aria-invalid={errorFor("followUpAfter") ? true : undefined} onChange={(e) => setDraft({ ...draft, followUpAfter: e.target.value })} />
            <span className="muted small">{t("settings.followUpAfterHint")}</span>
            <span className="field-error" data-field="followUpAfter">
              {errorFor("followUpAfter")}
            </span>
          </label>
        </fieldset>
        {general.length ? (
          <p className="error" role="alert">
            {general.map((e) => e.message).join("; ")}
          </p>
        ) : null}
        {saved ? (
          <p className="success" role="status">
            {t("settings.saved")}
          </p>
        ) : null}
        {!readOnly ? (
          <button type="submit" className="primary" disabled={saving.fetching}>
            {saving.fetching ? t("common.saving") : t("common.save")}
          </button>
        ) : null}
      </form>
    </section>
  );
}

/** "131026, 131049" as codes; anything that is not a number is sent as 0 so the server names the field. */
function smsCodesOf(text: string): number[] {
  return text
    .split(/[\s,،]+/)
    .filter(Boolean)
    .map((part) => (/^\d{1,9}$/.test(part) ? Number(part) : 0));
}
