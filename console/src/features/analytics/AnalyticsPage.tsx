import { useEffect, useMemo, useState, type FormEvent } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { useQuery } from "urql";
import { graphql } from "../../gql/index.ts";
import type { AnalyticsStatsQuery } from "../../gql/graphql.ts";
import { useI18n } from "../../shared/i18n/i18n.tsx";
import { intlLocale } from "../../shared/i18n/format.ts";
import { ErrorBanner } from "../../shared/ui/errors.tsx";
import {
  COMMON_TIME_ZONES,
  isTimeZone,
  readAnalyticsParams,
  toStatsRange,
  writeAnalyticsParams,
  type AnalyticsParams,
  type Interval,
  type RangePreset,
} from "./analytics-range.ts";
import { formatDuration, formatRate } from "./analytics-format.ts";
import { AnsweredFunnelChart, ConfirmationRateChart, TimeToAnswerChart } from "./AnalyticsCharts.tsx";

const AnalyticsStatsDocument = graphql(`
  query AnalyticsStats($from: DateTime!, $to: DateTime!, $timeZone: String!, $interval: StatsInterval!) {
    orderStats(from: $from, to: $to, timeZone: $timeZone, interval: $interval) {
      from
      to
      timeZone
      interval
      totals {
        created
        confirmed
        canceled
        failed
        expired
        pending
        answered
        confirmationRate
        answerRate
        timeToAnswerP50Seconds
        timeToAnswerP90Seconds
        failuresByErrorCode {
          errorCode
          count
          meaning
        }
      }
      buckets {
        start
        created
        confirmed
        answered
        confirmationRate
      }
    }
  }
`);

export type OrderStatsResult = AnalyticsStatsQuery["orderStats"];

/**
 * The analytics page: a range (last 7 / 30 days or custom local days) and interval in the merchant's time zone,
 * kept in the URL; the figures at a glance, then the funnel, the confirmation rate over time, the time to answer
 * and the failures by error code. Loaded lazily (with its chart library) only when opened.
 */
export default function AnalyticsPage() {
  const { t, timeZone: browserTimeZone } = useI18n();
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const params = readAnalyticsParams(search, browserTimeZone);
  // A preset's "today" is read when the params change (a reload re-reads it), not on every render.
  const range = useMemo(() => toStatsRange(params, new Date()), [search.toString(), browserTimeZone]); // eslint-disable-line react-hooks/exhaustive-deps

  const [result] = useQuery({
    query: AnalyticsStatsDocument,
    variables: { from: range.from, to: range.to, timeZone: params.timeZone, interval: params.interval === "hour" ? "HOUR" : "DAY" },
    requestPolicy: "cache-and-network",
  });
  const stats = result.data?.orderStats;
  const apply = (next: AnalyticsParams) => navigate({ search: `?${writeAnalyticsParams(next, browserTimeZone)}` });

  return (
    <section aria-labelledby="analytics-title" data-testid="analytics" data-from={range.from} data-to={range.to} data-time-zone={params.timeZone}>
      <div className="page-head">
        <h1 id="analytics-title">{t("analytics.title")}</h1>
      </div>
      <RangeForm params={params} range={range} onApply={apply} />
      <ErrorBanner error={result.error} />
      <p className="muted small" data-testid="analytics-time-zone">
        {t("analytics.shownIn", { zone: params.timeZone, from: range.firstDay, to: range.lastDay })}
      </p>
      {stats ? stats.totals.created === 0 ? <EmptyState /> : <Dashboard stats={stats} /> : !result.error ? <p>{t("app.loading")}</p> : null}
    </section>
  );
}

function EmptyState() {
  const { t } = useI18n();
  return (
    <div className="card empty" data-testid="analytics-empty">
      <p className="strong">{t("analytics.empty.title")}</p>
      <p>{t("analytics.empty.body")}</p>
    </div>
  );
}

function RangeForm(props: { params: AnalyticsParams; range: { firstDay: string; lastDay: string }; onApply(params: AnalyticsParams): void }) {
  const { t } = useI18n();
  const [draft, setDraft] = useState(props.params);
  const [zoneError, setZoneError] = useState(false);
  const key = `${props.params.range}|${props.params.from}|${props.params.to}|${props.params.interval}|${props.params.timeZone}`;
  useEffect(() => setDraft(props.params), [key]); // eslint-disable-line react-hooks/exhaustive-deps

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const timeZone = draft.timeZone.trim();
    if (!isTimeZone(timeZone)) {
      setZoneError(true);
      return;
    }
    setZoneError(false);
    const custom = draft.range === "custom";
    // A custom range starts from the shown days; from after to is swapped rather than refused.
    const from = custom ? draft.from || props.range.firstDay : "";
    const to = custom ? draft.to || props.range.lastDay : "";
    props.onApply({ ...draft, timeZone, from: from <= to ? from : to, to: from <= to ? to : from });
  };

  return (
    <form className="filters" onSubmit={submit} aria-label={t("analytics.range.formLabel")}>
      <label>
        {t("analytics.range.label")}
        <select name="range" value={draft.range} onChange={(e) => setDraft({ ...draft, range: e.target.value as RangePreset })}>
          <option value="7d">{t("analytics.range.7d")}</option>
          <option value="30d">{t("analytics.range.30d")}</option>
          <option value="custom">{t("analytics.range.custom")}</option>
        </select>
      </label>
      {draft.range === "custom" ? (
        <>
          <label>
            {t("analytics.range.from")}
            <input type="date" name="from" value={draft.from || props.range.firstDay} onChange={(e) => setDraft({ ...draft, from: e.target.value })} />
          </label>
          <label>
            {t("analytics.range.to")}
            <input type="date" name="to" value={draft.to || props.range.lastDay} onChange={(e) => setDraft({ ...draft, to: e.target.value })} />
          </label>
        </>
      ) : null}
      <label>
        {t("analytics.interval.label")}
        <select name="interval" value={draft.interval} onChange={(e) => setDraft({ ...draft, interval: e.target.value as Interval })}>
          <option value="day">{t("analytics.interval.day")}</option>
          <option value="hour">{t("analytics.interval.hour")}</option>
        </select>
      </label>
      <label>
        {t("analytics.timeZone")}
        <input
          name="timeZone"
          list="analytics-time-zones"
          dir="ltr"
          autoComplete="off"
          value={draft.timeZone}
          aria-invalid={zoneError}
          aria-describedby="analytics-time-zone-error"
          onChange={(e) => setDraft({ ...draft, timeZone: e.target.value })}
        />
        <span id="analytics-time-zone-error" className="field-error" role="alert">
          {zoneError ? t("analytics.timeZoneInvalid") : ""}
        </span>
      </label>
      <datalist id="analytics-time-zones">
        {COMMON_TIME_ZONES.map((zone) => (
          <option key={zone} value={zone} />
        ))}
      </datalist>
      <div className="filter-actions">
        <button type="submit" className="primary">
          {t("common.apply")}
        </button>
      </div>
    </form>
  );
}

function Dashboard({ stats }: { stats: OrderStatsResult }) {
  const { t, language, number } = useI18n();
  const locale = intlLocale(language);
  const none = t("common.none");
  const totals = stats.totals;
  const duration = (seconds: number | null | undefined) =>
    formatDuration(seconds, locale, { seconds: t("unit.s"), minutes: t("unit.min"), hours: t("unit.h"), days: t("unit.d") }, none);
  const figures: { key: string; label: string; value: string; raw: number | null }[] = [
    { key: "created", label: t("analytics.figure.created"), value: number(totals.created), raw: totals.created },
    { key: "confirmed", label: t("status.CONFIRMED"), value: number(totals.confirmed), raw: totals.confirmed },
    { key: "canceled", label: t("status.CANCELED"), value: number(totals.canceled), raw: totals.canceled },
    { key: "failed", label: t("status.FAILED"), value: number(totals.failed), raw: totals.failed },
    { key: "expired", label: t("status.EXPIRED"), value: number(totals.expired), raw: totals.expired },
    { key: "pending", label: t("status.PENDING"), value: number(totals.pending), raw: totals.pending },
    { key: "confirmation-rate", label: t("analytics.figure.confirmationRate"), value: formatRate(totals.confirmationRate, locale, none), raw: totals.confirmationRate ?? null },
    { key: "answer-rate", label: t("analytics.figure.answerRate"), value: formatRate(totals.answerRate, locale, none), raw: totals.answerRate ?? null },
    { key: "p50", label: t("analytics.figure.p50"), value: duration(totals.timeToAnswerP50Seconds), raw: totals.timeToAnswerP50Seconds ?? null },
    { key: "p90", label: t("analytics.figure.p90"), value: duration(totals.timeToAnswerP90Seconds), raw: totals.timeToAnswerP90Seconds ?? null },
  ];
  return (
    <>
      <dl className="figures" data-testid="figures">
        {figures.map((figure) => (
          <div key={figure.key} className={`figure figure-${figure.key}${figure.raw ? "" : " figure-zero"}`} data-testid={`figure-${figure.key}`} data-value={figure.raw ?? ""}>
            <dt>{figure.label}</dt>
            <dd>{figure.value}</dd>
          </div>
        ))}
      </dl>
      <div className="charts">
        <section className="card" aria-labelledby="funnel-title" data-testid="funnel">
          <h2 id="funnel-title">{t("analytics.funnel.title")}</h2>
          <p className="muted small">{t("analytics.funnel.hint")}</p>
          <AnsweredFunnelChart created={totals.created} answered={totals.answered} confirmed={totals.confirmed} />
        </section>
        <section className="card" aria-labelledby="rate-title" data-testid="rate-over-time">
          <h2 id="rate-title">{t("analytics.rate.title")}</h2>
          <p className="muted small">{t("analytics.rate.hint")}</p>
          <ConfirmationRateChart buckets={stats.buckets} interval={stats.interval} timeZone={stats.timeZone} />
        </section>
        <section className="card" aria-labelledby="answer-title" data-testid="time-to-answer">
          <h2 id="answer-title">{t("analytics.answer.title")}</h2>
          <p className="muted small">{t("analytics.answer.hint", { answered: number(totals.answered) })}</p>
          <dl className="figures figures-compact">
            <div className="figure">
              <dt>{t("analytics.figure.p50")}</dt>
              <dd>{duration(totals.timeToAnswerP50Seconds)}</dd>
            </div>
            <div className="figure">
              <dt>{t("analytics.figure.p90")}</dt>
              <dd>{duration(totals.timeToAnswerP90Seconds)}</dd>
            </div>
          </dl>
          <TimeToAnswerChart p50={totals.timeToAnswerP50Seconds ?? null} p90={totals.timeToAnswerP90Seconds ?? null} format={duration} />
        </section>
        <section className="card" aria-labelledby="failures-title" data-testid="failures">
          <h2 id="failures-title">{t("analytics.failures.title")}</h2>
          <FailuresTable failures={totals.failuresByErrorCode} />
        </section>
      </div>
    </>
  );
}

function FailuresTable({ failures }: { failures: OrderStatsResult["totals"]["failuresByErrorCode"] }) {
  const { t, number } = useI18n();
  if (failures.length === 0) return <p className="muted">{t("analytics.failures.none")}</p>;
  const most = Math.max(...failures.map((failure) => failure.count));
  return (
    <div className="table-wrap">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">{t("analytics.failures.code")}</th>
            <th scope="col">{t("analytics.failures.meaning")}</th>
            <th scope="col" className="numeric">
              {t("analytics.failures.count")}
            </th>
          </tr>
        </thead>
        <tbody>
          {failures.map((failure) => (
            <tr key={failure.errorCode ?? "none"} data-error-code={failure.errorCode ?? ""} data-count={failure.count}>
              <td dir="ltr" className="nowrap">
                {failure.errorCode ?? t("common.none")}
              </td>
              <td>{failure.meaning ?? (failure.errorCode === null ? t("analytics.failures.noCode") : t("analytics.failures.unknown"))}</td>
              <td className="numeric">
                <span className="bar" aria-hidden="true" style={{ inlineSize: `${Math.max(4, (failure.count / most) * 80)}px` }} />
                {number(failure.count)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
