import { Bar, BarChart, CartesianGrid, Cell, ComposedChart, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { StatsInterval } from "../../gql/graphql.ts";
import { useI18n } from "../../shared/i18n/i18n.tsx";
import { intlLocale } from "../../shared/i18n/format.ts";
import { formatRate } from "./analytics-format.ts";
import type { OrderStatsResult } from "./AnalyticsPage.tsx";

/**
 * The analytics charts (recharts, loaded with the analytics page only). In Arabic the axes mirror: the time axis
 * runs right to left and the value axis sits on the right, so a chart reads in the page's direction. Each chart
 * has a text summary (aria-label) with the same numbers, for screen readers and for the numbers next to it.
 */
const ACCENT = "#1a5fd1";
const SUCCESS = "#1f7a3d";
const MUTED = "#9aa3b2";
const AXIS_TICK = { fontSize: 12, fill: "#5d6677" };

export function AnsweredFunnelChart(props: { created: number; answered: number; confirmed: number }) {
  const { t, number, language } = useI18n();
  const rtl = language === "ar";
  const share = (value: number) => formatRate(props.created ? value / props.created : null, intlLocale(language), t("common.none"));
  const data = [
    { step: t("analytics.funnel.created"), value: props.created, fill: MUTED },
    { step: t("analytics.funnel.answered"), value: props.answered, fill: ACCENT },
    { step: t("analytics.funnel.confirmed"), value: props.confirmed, fill: SUCCESS },
  ].map((entry) => ({ ...entry, label: `${entry.step}: ${number(entry.value)} (${share(entry.value)})` }));
  return (
    <div role="img" aria-label={data.map((entry) => entry.label).join(" → ")} className="chart chart-short">
      <ResponsiveContainer width="100%" height={150}>
        <BarChart data={data} layout="vertical" margin={{ top: 4, right: 16, bottom: 4, left: 16 }}>
          <XAxis type="number" hide reversed={rtl} domain={[0, "dataMax"]} />
          <YAxis type="category" dataKey="step" orientation={rtl ? "right" : "left"} width={96} tick={AXIS_TICK} tickLine={false} axisLine={false} />
          <Tooltip formatter={(value) => number(Number(value))} cursor={{ fill: "#eef2fb" }} />
          <Bar dataKey="value" name={t("analytics.funnel.orders")} radius={4} isAnimationActive={false}>
            {data.map((entry) => (
              <Cell key={entry.step} fill={entry.fill} />
            ))}
          </Bar>
        </BarChart>
      </ResponsiveContainer>
      <ol className="funnel-steps" aria-hidden="true">
        {data.map((entry) => (
          <li key={entry.step}>{entry.label}</li>
        ))}
      </ol>
    </div>
  );
}

export function ConfirmationRateChart(props: { buckets: OrderStatsResult["buckets"]; interval: StatsInterval; timeZone: string }) {
  const { t, number, language } = useI18n();
  const rtl = language === "ar";
  const locale = intlLocale(language);
  const label = new Intl.DateTimeFormat(
    locale,
    props.interval === "HOUR" ? { timeZone: props.timeZone, day: "numeric", hour: "2-digit", minute: "2-digit" } : { timeZone: props.timeZone, month: "short", day: "numeric" },
  );
  const data = props.buckets.map((bucket) => ({
    when: label.format(new Date(bucket.start)),
    rate: bucket.confirmationRate === null || bucket.confirmationRate === undefined ? null : Math.round(bucket.confirmationRate * 1000) / 10,
    created: bucket.created,
  }));
  const withRate = data.filter((entry) => entry.rate !== null);
  const summary = withRate.map((entry) => `${entry.when}: ${number(entry.rate!)}%`).join(", ") || t("analytics.rate.noAnswers");
  return (
    <div role="img" aria-label={summary} className="chart">
      <ResponsiveContainer width="100%" height={240}>
        <ComposedChart data={data} margin={{ top: 8, right: 8, bottom: 4, left: 8 }}>
          <CartesianGrid stroke="#e5e8ee" vertical={false} />
          <XAxis dataKey="when" reversed={rtl} tick={AXIS_TICK} minTickGap={16} />
          <YAxis yAxisId="rate" orientation={rtl ? "right" : "left"} domain={[0, 100]} unit="%" width={44} tick={AXIS_TICK} />
          <YAxis yAxisId="created" orientation={rtl ? "left" : "right"} allowDecimals={false} width={36} tick={AXIS_TICK} />
          <Tooltip
            formatter={(value, name) => (name === t("analytics.rate.series") ? `${number(Number(value))}%` : number(Number(value)))}
          />
          <Bar yAxisId="created" dataKey="created" name={t("analytics.figure.created")} fill="#d6e2f8" isAnimationActive={false} />
          <Line
            yAxisId="rate"
            dataKey="rate"
            name={t("analytics.rate.series")}
            stroke={SUCCESS}
            strokeWidth={2}
            dot={{ r: 3 }}
            connectNulls
            isAnimationActive={false}
          />
        </ComposedChart>
      </ResponsiveContainer>
      <p className="legend small" aria-hidden="true">
        <span className="swatch swatch-rate" /> {t("analytics.rate.series")} <span className="swatch swatch-created" /> {t("analytics.figure.created")}
      </p>
    </div>
  );
}

export function TimeToAnswerChart(props: { p50: number | null; p90: number | null; format(seconds: number | null): string }) {
  const { t, language } = useI18n();
  const rtl = language === "ar";
  if (props.p50 === null && props.p90 === null) return <p className="muted">{t("analytics.answer.none")}</p>;
  const data = [
    { name: t("analytics.answer.p50"), seconds: props.p50 ?? 0 },
    { name: t("analytics.answer.p90"), seconds: props.p90 ?? 0 },
  ];
  return (
    <div role="img" aria-label={data.map((entry) => `${entry.name}: ${props.format(entry.seconds)}`).join(", ")} className="chart chart-short">
      <ResponsiveContainer width="100%" height={110}>
        <BarChart data={data} layout="vertical" margin={{ top: 4, right: 16, bottom: 4, left: 16 }}>
          <XAxis type="number" hide reversed={rtl} domain={[0, "dataMax"]} />
          <YAxis type="category" dataKey="name" orientation={rtl ? "right" : "left"} width={96} tick={AXIS_TICK} tickLine={false} axisLine={false} />
          <Tooltip formatter={(value) => props.format(Number(value))} cursor={{ fill: "#eef2fb" }} />
          <Bar dataKey="seconds" name={t("analytics.answer.title")} fill={ACCENT} radius={4} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
