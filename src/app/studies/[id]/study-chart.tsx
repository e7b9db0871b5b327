"use client";
import { memo } from "react";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { themeColors as color } from "../../_lib/theme-colors";

export interface ChartPoint {
  /** "choice.repeat" */
  label: string;
  tokens: number | null;
  seconds: number | null;
}

const axis = { stroke: color.line, tick: { fill: color.muted, fontSize: 11 } };
const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });

/** Tokens (left axis) and agent seconds (right axis) per trial. Client-only: loaded with next/dynamic. */
export const StudyChart = memo(function StudyChart({ points }: { points: readonly ChartPoint[] }) {
  return (
    <div
      className="h-72 w-full"
      role="img"
      aria-label={`Tokens and agent seconds for ${points.length} trials`}
      data-testid="study-chart"
    >
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={points} margin={{ top: 8, right: 8, bottom: 8, left: 8 }} barCategoryGap="15%">
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
            cursor={{ fill: color.accentTint }}
            contentStyle={{ background: color.panel, border: `1px solid ${color.line}`, borderRadius: 6, fontSize: 12 }}
            labelStyle={{ color: color.ink }}
            labelFormatter={(label) => `Trial ${typeof label === "string" ? label : ""}`}
            formatter={(value, name) => [
              typeof value === "number" ? (name === "Agent seconds" ? value.toFixed(1) : integer.format(value)) : "—",
              name,
            ]}
          />
          <Legend wrapperStyle={{ fontSize: 12, color: color.muted }} />
          <Bar yAxisId="tokens" dataKey="tokens" name="Tokens" fill={color.accent} isAnimationActive={false} />
          <Bar yAxisId="seconds" dataKey="seconds" name="Agent seconds" fill={color.ok} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
});
