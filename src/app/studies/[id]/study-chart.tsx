"use client";
import { memo } from "react";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

export interface ChartPoint {
  /** "choice.repeat" */
  label: string;
  tokens: number | null;
  seconds: number | null;
}

const axis = { stroke: "#262b36", tick: { fill: "#9aa3b2", fontSize: 11 } };
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
          <CartesianGrid stroke="#262b36" vertical={false} />
          <XAxis dataKey="label" {...axis} interval="preserveStartEnd" minTickGap={8} />
          <YAxis
            yAxisId="tokens"
            orientation="left"
            {...axis}
            tickFormatter={(value: number) => compact.format(value)}
            label={{ value: "tokens", angle: -90, position: "insideLeft", fill: "#9aa3b2", fontSize: 11 }}
          />
          <YAxis
            yAxisId="seconds"
            orientation="right"
            {...axis}
            label={{ value: "seconds", angle: 90, position: "insideRight", fill: "#9aa3b2", fontSize: 11 }}
          />
          <Tooltip
            cursor={{ fill: "rgba(124,156,255,0.08)" }}
            contentStyle={{ background: "#12151c", border: "1px solid #262b36", borderRadius: 6, fontSize: 12 }}
            labelStyle={{ color: "#e6e8ee" }}
            labelFormatter={(label) => `Trial ${typeof label === "string" ? label : ""}`}
            formatter={(value, name) => [
              typeof value === "number" ? (name === "Agent seconds" ? value.toFixed(1) : integer.format(value)) : "—",
              name,
            ]}
          />
          <Legend wrapperStyle={{ fontSize: 12, color: "#9aa3b2" }} />
          <Bar yAxisId="tokens" dataKey="tokens" name="Tokens" fill="#7c9cff" isAnimationActive={false} />
          <Bar yAxisId="seconds" dataKey="seconds" name="Agent seconds" fill="#34d399" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
});
