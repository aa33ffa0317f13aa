import "../../shared/ui/desk.css";
import { Link } from "react-router";
import { useQuery } from "urql";
import { graphql } from "../../gql/index.ts";
import type { GettingStartedStepKey } from "../../gql/graphql.ts";
import { useI18n } from "../../shared/i18n/i18n.tsx";
import { useOrderEvents } from "../../shared/live-orders.tsx";

const GettingStartedQuery = graphql(`
  query GettingStarted {
    gettingStarted {
      remaining
      steps {
        key
        done
      }
    }
  }
`);

/** Where each step is done: a console page, or the simulator (served beside the console). */
const STEP_LINKS: Record<GettingStartedStepKey, { to: string; external?: boolean }> = {
  TRY_SIMULATOR: { to: "/simulator", external: true },
  CREATE_KEY: { to: "/keys" },
  ADD_WEBHOOK: { to: "/webhooks" },
  SET_POLICY: { to: "/settings" },
  CONNECT_STORE: { to: "/stores" },
  GO_LIVE: { to: "/keys" },
};

/**
 * A new merchant's checklist (SPEC §15), as Hive's get-started wizard: the server ticks each step from real data,
 * the card says how many are left and disappears once none is. Read again when an order changes (the simulator
 * step ticks when its test order is answered).
 */
export function GettingStartedCard() {
  const { t } = useI18n();
  const [result, reexecute] = useQuery({ query: GettingStartedQuery, requestPolicy: "cache-and-network" });
  useOrderEvents(() => reexecute({ requestPolicy: "network-only" }));
  const checklist = result.data?.gettingStarted;
  if (!checklist || checklist.remaining === 0) return null;
  return (
    <details className="card getting-started" data-testid="getting-started" open>
      <summary>
        <strong>{t("gettingStarted.title")}</strong> <span className="badge badge-pending">{t("gettingStarted.left", { count: checklist.remaining })}</span>
      </summary>
      <ol className="checklist">
        {checklist.steps.map((step) => {
          const link = STEP_LINKS[step.key];
          return (
            <li key={step.key} data-step={step.key} data-done={step.done} className={step.done ? "done" : undefined}>
              <span className="check" aria-hidden="true">
                {step.done ? "✓" : ""}
              </span>
              <span className="visually-hidden">{step.done ? t("gettingStarted.done") : t("gettingStarted.todo")}: </span>
              <span className="checklist-text">{t(`gettingStarted.${step.key}`)}</span>
              {!step.done ? (
                link.external ? (
                  <a href={link.to} className="small">
                    {t("gettingStarted.go")}
                  </a>
                ) : (
                  <Link to={link.to} className="small">
                    {t("gettingStarted.go")}
                  </Link>
                )
              ) : null}
            </li>
          );
        })}
      </ol>
    </details>
  );
}
