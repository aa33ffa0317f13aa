import { useI18n } from "../i18n/i18n.tsx";

/** What a lazily loaded page shows while its code arrives. */
export function PageLoading() {
  const { t } = useI18n();
  return (
    <p className="muted" role="status">
      {t("app.loading")}
    </p>
  );
}
