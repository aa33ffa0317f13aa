import type { CombinedError } from "urql";
import { useI18n } from "../i18n/i18n.tsx";

/** A query's network or GraphQL error, shown once at the top of the page (401 goes to sign-in instead). */
export function ErrorBanner({ error }: { error: CombinedError | undefined | null }) {
  const { t } = useI18n();
  if (!error) return null;
  if (error.response?.status === 401) return null;
  const message = error.networkError ? t("error.network") : t("error.generic", { message: error.graphQLErrors.map((e) => e.message).join("; ") });
  return (
    <p className="error banner" role="alert">
      {message}
    </p>
  );
}

/** The message of a mutation's failure: its GraphQL errors (e.g. FORBIDDEN) or the network. */
export function mutationErrorMessage(error: CombinedError | undefined, t: ReturnType<typeof useI18n>["t"]): string | null {
  if (!error) return null;
  if (error.networkError && error.graphQLErrors.length === 0) return t("error.network");
  return error.graphQLErrors.map((e) => e.message).join("; ");
}
