"use client";
import { memo } from "react";
import {
  Bar,
  BarChart,
  CartesianGrid,
  Cell,
  ErrorBar,
  Legend,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { themeColors as color } from "../../_lib/theme-colors";
import { verdictColor } from "../verdict-style";
import type { ConfigurationChartPoint, TrialChartPoint } from "./chart-data";

const axis = { stroke: color.line, tick: { fill: color.muted, fontSize: 11 } };
const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });
const tooltip = {
  cursor: { fill: color.accentTint },
  contentStyle: { background: color.panel, border: `1px solid ${color.line}`, borderRadius: 6, fontSize: 12 },
  labelStyle: { color: color.ink },
};
const fillOf = (fraction: number | null) => (fraction === null ? color.line : verdictColor(fraction));
const rowHeight = (rows: number) => Math.max(120, rows * 30 + 48);

/** A horizontal bar chart of tests passed: one bar per row, coloured red → amber → green by the fraction passed. */
function TestsBars<T extends { label: string; fraction: number | null; total: number | null }>(props: {
  rows: readonly T[];
  dataKey: keyof T & string;
  name: string;
  testId: string;
  describe: (row: T) => string;
  errorKey?: keyof T & string;
}) {
  const max = Math.max(1, ...props.rows.map((row) => row.total ?? 0));
  return (
    <div
      style={{ height: rowHeight(props.rows.length) }}
      className="w-full"
      role="img"
      aria-label={`${props.name}: ${props.rows.map(props.describe).join("; ")}`}
      data-testid={props.testId}
    >
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={[...props.rows]} layout="vertical" margin={{ top: 4, right: 16, bottom: 4, left: 8 }}>
          <CartesianGrid stroke={color.line} horizontal={false} />
          <XAxis type="number" domain={[0, max]} allowDecimals={false} {...axis} />
          <YAxis type="category" dataKey="label" width={150} {...axis} interval={0} />
          <Tooltip
            {...tooltip}
            formatter={(value, _name, item) => {
              const row = item.payload as T;
              return [
                typeof value === "number" ? `${Math.round(value * 10) / 10}/${row.total ?? "?"}` : "—",
                props.name,
              ];
            }}
          />
          <Bar dataKey={String(props.dataKey)} name={props.name} isAnimationActive={false} minPointSize={3}>
            {props.rows.map((row, index) => (
              <Cell key={index} fill={fillOf(row.fraction)} />
            ))}
            {props.errorKey ? (
              <ErrorBar dataKey={String(props.errorKey)} stroke={color.muted} width={4} direction="x" />
            ) : null}
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

/** Tests passed per trial and, beside it, per configuration (mean, with the min–max range). Client-only. */
export const TestsChart = memo(function TestsChart({
  trials,
  configurations,
}: {
  trials: readonly TrialChartPoint[];
  configurations: readonly ConfigurationChartPoint[];
}) {
  const byConfiguration = configurations
    .filter((row) => row.meanPassed !== null)
    .map((row) => ({
      ...row,
      spread:
        row.range && row.meanPassed !== null ? [row.meanPassed - row.range[0], row.range[1] - row.meanPassed] : [0, 0],
    }));
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <div>
        <h3 className="mb-2 text-xs uppercase tracking-wide text-muted">Per trial</h3>
        <TestsBars
          rows={trials}
          dataKey="passed"
          name="Tests passed"
          testId="tests-chart-trials"
          describe={(row) => `${row.label} ${row.passed === null ? "no verdict" : `${row.passed}/${row.total}`}`}
        />
      </div>
      <div>
        <h3 className="mb-2 text-xs uppercase tracking-wide text-muted">Per configuration (mean, min–max)</h3>
        <TestsBars
          rows={byConfiguration}
          dataKey="meanPassed"
          name="Mean tests passed"
          testId="tests-chart-configurations"
          errorKey="spread"
          describe={(row) =>
            `Configuration ${row.choice} (${row.label}): mean ${Math.round((row.meanPassed ?? 0) * 10) / 10}/${row.total} over ${row.judged} trial${row.judged === 1 ? "" : "s"}`
          }
        />
      </div>
    </div>
  );
});

/** Tokens (left axis) and agent seconds (right axis) per trial. Client-only: loaded with next/dynamic. */
export const UsageChart = memo(function UsageChart({ points }: { points: readonly TrialChartPoint[] }) {
  return (
    <div
      className="h-72 w-full"
      role="img"
      aria-label={`Tokens and agent seconds for ${points.length} trials`}
      data-testid="study-chart"
    >
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={[...points]} margin={{ top: 8, right: 8, bottom: 8, left: 8 }} barCategoryGap="15%">
          <CartesianGrid stroke={color.line} vertical={false} />
          <XAxis dataKey="label" {...axis} interval="preserveStartEnd" minTickGap={8} />
          <YAxis
            yAxisId="tokens"
            orientation="left"
            {...axis}
            tickFormatter={(value: number) => compact.format(value)}
            label={{ value: "tokens", angle: -90, position: "insideLeft", fill: color.muted, fontSize: 11 }}
          />
          <YAxis
            yAxisId="seconds"
            orientation="right"
            {...axis}
            label={{ value: "seconds", angle: 90, position: "insideRight", fill: color.muted, fontSize: 11 }}
          />
          <Tooltip
            {...tooltip}
            formatter={(value, name) => [
              typeof value === "number" ? (name === "Agent seconds" ? value.toFixed(1) : integer.format(value)) : "—",
              name,
            ]}
          />
          <Legend wrapperStyle={{ fontSize: 12, color: color.muted }} />
          <Bar yAxisId="tokens" dataKey="tokens" name="Tokens" fill={color.accent} isAnimationActive={false} />
          <Bar yAxisId="seconds" dataKey="seconds" name="Agent seconds" fill={color.muted} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
});
