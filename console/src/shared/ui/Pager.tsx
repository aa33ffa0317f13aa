import { useI18n } from "../i18n/i18n.tsx";

/** Next / Previous over a keyset-paginated list: the cursors of the pages already seen are kept. */
export function Pager(props: { page: number; hasPrevious: boolean; hasNext: boolean; onPrevious(): void; onNext(): void }) {
  const { t } = useI18n();
  return (
    <nav className="pager" aria-label={t("orders.page", { page: props.page })}>
      <button type="button" disabled={!props.hasPrevious} onClick={props.onPrevious}>
        {t("common.previous")}
      </button>
      <span>{t("orders.page", { page: props.page })}</span>
      <button type="button" disabled={!props.hasNext} onClick={props.onNext}>
        {t("common.next")}
      </button>
    </nav>
  );
}
