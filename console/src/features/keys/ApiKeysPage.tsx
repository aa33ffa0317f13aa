import { useState } from "react";
import { useMutation, useQuery } from "urql";
import { graphql } from "../../gql/index.ts";
import { useI18n } from "../../shared/i18n/i18n.tsx";
import { useViewer } from "../../shared/session/viewer.tsx";
import { ConfirmDialog, SecretDialog } from "../../shared/ui/Dialog.tsx";
import { ErrorBanner, mutationErrorMessage } from "../../shared/ui/errors.tsx";

const ApiKeysQuery = graphql(`
  query ApiKeys {
    apiKeys {
      id
      prefix
      mode
      createdAt
      lastUsedAt
      revokedAt
    }
  }
`);

const CreateApiKeyMutation = graphql(`
  mutation CreateApiKey($mode: KeyMode!) {
    createApiKey(mode: $mode) {
      key
      apiKey {
        id
        prefix
      }
      userErrors {
        code
        message
      }
    }
  }
`);

const RevokeApiKeyMutation = graphql(`
  mutation RevokeApiKey($id: ID!) {
    revokeApiKey(id: $id) {
      apiKey {
        id
        revokedAt
      }
      userErrors {
        code
        message
      }
    }
  }
`);

export function ApiKeysPage() {
  const { t, dateTime } = useI18n();
  const viewer = useViewer();
  const [result, reexecute] = useQuery({ query: ApiKeysQuery, requestPolicy: "cache-and-network" });
  const [createState, createKey] = useMutation(CreateApiKeyMutation);
  const [revokeState, revokeKey] = useMutation(RevokeApiKeyMutation);
  const [newKey, setNewKey] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<{ id: string; prefix: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const modeName = t(viewer.mode === "LIVE" ? "mode.live" : "mode.test");
  const refresh = () => reexecute({ requestPolicy: "network-only" });

  const onCreate = async () => {
    // Not a disabled button while creating: a disabled button drops focus, which the dialog returns to on close.
    if (createState.fetching) return;
    setError(null);
    const outcome = await createKey({ mode: viewer.mode });
    const message = mutationErrorMessage(outcome.error, t) ?? outcome.data?.createApiKey.userErrors.map((e) => e.message).join("; ");
    if (message) return setError(message);
    setNewKey(outcome.data?.createApiKey.key ?? null);
    refresh();
  };
  const onRevoke = async () => {
    if (!revoking) return;
    const outcome = await revokeKey({ id: revoking.id });
    const message = mutationErrorMessage(outcome.error, t) ?? outcome.data?.revokeApiKey.userErrors.map((e) => e.message).join("; ");
    if (message) return setError(message);
    setRevoking(null);
    refresh();
  };

  const keys = result.data?.apiKeys ?? [];
  return (
    <section aria-labelledby="keys-title">
      <div className="page-head">
        <h1 id="keys-title">{t("keys.title")}</h1>
        {viewer.canWrite ? (
          <button type="button" className="primary" aria-busy={createState.fetching} onClick={onCreate} data-testid="create-key">
            {t("keys.create", { mode: modeName })}
          </button>
        ) : null}
      </div>
      <p className="muted">{t("keys.intro", { mode: modeName })}</p>
      <ErrorBanner error={result.error} />
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="table-wrap">
        <table className="table cards" data-testid="keys-table">
          <thead>
            <tr>
              <th scope="col">{t("keys.prefix")}</th>
              <th scope="col">{t("keys.mode")}</th>
              <th scope="col">{t("keys.created")}</th>
              <th scope="col">{t("keys.lastUsed")}</th>
              <th scope="col">{t("keys.state")}</th>
              {viewer.canWrite ? <th scope="col" aria-label={t("keys.revoke")} /> : null}
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.id} data-key-prefix={key.prefix} data-revoked={key.revokedAt ? "true" : "false"}>
                <td>
                  <code dir="ltr">{key.prefix}…</code>
                </td>
                <td>{t(key.mode === "LIVE" ? "mode.live" : "mode.test")}</td>
                <td>{dateTime(key.createdAt)}</td>
                <td>{key.lastUsedAt ? dateTime(key.lastUsedAt) : t("common.never")}</td>
                <td>{key.revokedAt ? t("keys.revoked", { at: dateTime(key.revokedAt) }) : t("keys.active")}</td>
                {viewer.canWrite ? (
                  <td>
                    {!key.revokedAt ? (
                      <button type="button" className="danger small-button" onClick={() => setRevoking({ id: key.id, prefix: key.prefix })}>
                        {t("keys.revoke")}
                      </button>
                    ) : null}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
        {result.data && keys.length === 0 ? <p className="empty">{t("keys.empty")}</p> : null}
      </div>
      {newKey ? <SecretDialog title={t("keys.created.title")} secret={newKey} onClose={() => setNewKey(null)} /> : null}
      {revoking ? (
        <ConfirmDialog
          title={t("keys.revoke")}
          message={t("keys.revokeConfirm", { prefix: revoking.prefix })}
          confirmLabel={t("keys.revoke")}
          busy={revokeState.fetching}
          onConfirm={onRevoke}
          onClose={() => setRevoking(null)}
        />
      ) : null}
    </section>
  );
}
