import { useEffect, useState } from "react";
import { useQuery } from "urql";
import { graphql } from "../../gql/index.ts";
import { useI18n } from "../../shared/i18n/i18n.tsx";
import type { MessageKey } from "../../shared/i18n/messages.ts";
import { ErrorBanner } from "../../shared/ui/errors.tsx";
import { Pager } from "../../shared/ui/Pager.tsx";

const AuditLogQuery = graphql(`
  query AuditLog($first: Int, $after: String, $filter: AuditLogFilter) {
    auditLog(first: $first, after: $after, filter: $filter) {
      edges {
        cursor
        node {
          id
          at
          action
          target
          address
          actor {
            kind
            id
            label
          }
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const AUDIT_ACTIONS = [
  "api_key.created",
  "api_key.revoked",
  "endpoint_secret.created",
  "endpoint_secret.rotated",
  "user.created",
  "user.removed",
  "user.password_reset",
  "sign_in.succeeded",
  "sign_in.failed",
  "store.connected",
  "store.disconnected",
] as const;

const PAGE_SIZE = 50;

/** The merchant's security history (SPEC §14), newest first, for admins: filter by action and by actor. */
export function SecurityPage() {
  const { t, dateTime } = useI18n();
  const [action, setAction] = useState("");
  const [actor, setActor] = useState("");
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const after = cursors[cursors.length - 1];
  const filter = { ...(action ? { action } : {}), ...(actor ? { actorId: actor } : {}) };
  const [result] = useQuery({
    query: AuditLogQuery,
    variables: { first: PAGE_SIZE, after, filter },
    requestPolicy: "cache-and-network",
  });
  // Actors seen so far (this page and earlier choices), for the actor filter.
  const [actors, setActors] = useState<Map<string, string>>(new Map([["cli", t("security.actor.cli")]]));
  const entries = result.data?.auditLog.edges.map((edge) => edge.node) ?? [];
  useEffect(() => {
    const unseen = entries.filter((entry) => entry.actor.id && !actors.has(entry.actor.id));
    if (unseen.length === 0) return;
    const next = new Map(actors);
    for (const entry of unseen) next.set(entry.actor.id!, entry.actor.label);
    setActors(next);
  }, [entries, actors]);
  const resetPaging = () => setCursors([null]);

  return (
    <section aria-labelledby="security-title">
      <div className="page-head">
        <h1 id="security-title">{t("security.title")}</h1>
      </div>
      <p className="muted">{t("security.intro")}</p>
      <form className="filters" onSubmit={(event) => event.preventDefault()} aria-label={t("security.filters")}>
        <label>
          {t("security.action")}
          <select
            data-testid="audit-action"
            value={action}
            onChange={(event) => {
              setAction(event.target.value);
              resetPaging();
            }}
          >
            <option value="">{t("security.any")}</option>
            {AUDIT_ACTIONS.map((value) => (
              <option key={value} value={value}>
                {t(`security.action.${value}` as MessageKey)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t("security.actor")}
          <select
            data-testid="audit-actor"
            value={actor}
            onChange={(event) => {
              setActor(event.target.value);
              resetPaging();
            }}
          >
            <option value="">{t("security.any")}</option>
            {[...actors].map(([id, label]) => (
              <option key={id} value={id}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </form>
      <ErrorBanner error={result.error} />
      <div className="table-wrap">
        <table className="table cards" data-testid="audit-table">
          <thead>
            <tr>
              <th scope="col">{t("security.when")}</th>
              <th scope="col">{t("security.action")}</th>
              <th scope="col">{t("security.actor")}</th>
              <th scope="col">{t("security.target")}</th>
              <th scope="col">{t("security.address")}</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id} data-action={entry.action}>
                <td data-label={t("security.when")}>{dateTime(entry.at)}</td>
                <td data-label={t("security.action")}>
                  <span className={entry.action === "sign_in.failed" ? "badge badge-failed" : "badge"}>
                    {t(`security.action.${entry.action}` as MessageKey)}
                  </span>
                </td>
                <td data-label={t("security.actor")}>
                  <span className="muted">{t(`security.actorKind.${entry.actor.kind}` as MessageKey)}</span> <bdi>{entry.actor.label}</bdi>
                </td>
                <td data-label={t("security.target")}>
                  {entry.target ? (
                    // Ids are time-ordered (UUIDv7): their ends tell them apart, their beginnings do not.
                    <code dir="ltr" title={entry.target}>
                      …{entry.target.slice(-8)}
                    </code>
                  ) : (
                    "—"
                  )}
                </td>
                <td data-label={t("security.address")}>
                  <bdi dir="ltr">{entry.address ?? "—"}</bdi>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {result.data && entries.length === 0 ? <p className="empty">{t("security.empty")}</p> : null}
      </div>
      <Pager
        page={cursors.length}
        hasPrevious={cursors.length > 1}
        hasNext={Boolean(result.data?.auditLog.pageInfo.hasNextPage)}
        onPrevious={() => setCursors(cursors.slice(0, -1))}
        onNext={() => setCursors([...cursors, result.data?.auditLog.pageInfo.endCursor ?? null])}
      />
      <p className="muted small">{t("security.retention")}</p>
    </section>
  );
}
