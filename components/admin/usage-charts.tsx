"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { UsageSeries } from "@/lib/admin/read-overview";
import { formatDollars, formatTokens } from "./admin-format";

/** One colour per series, the last ("Other") grey. */
const COLORS = ["#4c6ef5", "#f59f00", "#12b886", "#e64980", "#7950f2", "#15aabf", "#868e96"];

interface UsageChartProps {
  title: string;
  metric: "tokens" | "costUsd";
  buckets: string[];
  bucketMs: number;
  series: UsageSeries[];
}

function bucketLabel(iso: string, bucketMs: number): string {
  const date = new Date(iso);
  if (bucketMs >= 86_400_000) return date.toLocaleDateString("en-GB", { day: "numeric", month: "short" });
  const time = date.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" });
  return bucketMs >= 6 * 3_600_000 ? `${date.toLocaleDateString("en-GB", { weekday: "short" })} ${time}` : time;
}

/**
 * What the instance's models spent in each period of the range, stacked by model or by agent:
 * a bar per period, so a busy hour or a model that suddenly costs more stands out.
 */
export function UsageChart({ title, metric, buckets, bucketMs, series }: UsageChartProps) {
  const format = metric === "tokens" ? formatTokens : formatDollars;
  // Series are named by position: model names hold dots and colons, which the chart would read as paths.
  const data = buckets.map((bucket, index) => ({
    bucket,
    ...Object.fromEntries(series.map((line, position) => [`s${position}`, line[metric][index] ?? 0])),
  }));
  const total = series.reduce((sum, line) => sum + line[metric].reduce((a, b) => a + b, 0), 0);
  return (
    <section className="card admin-chart" data-testid={`usage-chart-${metric === "tokens" ? "tokens" : "cost"}`}>
      <div className="admin-chart__head">
        <h3>{title}</h3>
        <span className="muted">{format(total)} in this range</span>
      </div>
      {total === 0 ? (
        <p className="admin-chart__empty">
          {metric === "costUsd" && series.length > 0
            ? "Nothing was billed in this range: the models used have no price (the scripted model is free)."
            : "No model calls in this range."}
        </p>
      ) : (
        <div className="admin-chart__plot">
          <ResponsiveContainer width="100%" height="100%">
            <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e9ecef" />
              <XAxis
                dataKey="bucket"
                tickFormatter={(value: string) => bucketLabel(value, bucketMs)}
                minTickGap={18}
                tick={{ fontSize: 11 }}
              />
              <YAxis tickFormatter={(value: number) => format(value)} width={56} tick={{ fontSize: 11 }} />
              <Tooltip
                formatter={(value) => format(Number(value))}
                labelFormatter={(label) => bucketLabel(String(label), bucketMs)}
                contentStyle={{ fontSize: 12, borderRadius: 8 }}
              />
              <Legend wrapperStyle={{ fontSize: 12 }} />
              {series.map((line, position) => (
                <Bar
                  key={line.key}
                  dataKey={`s${position}`}
                  name={line.label}
                  stackId="usage"
                  fill={line.key === "other" ? COLORS.at(-1) : COLORS[position % (COLORS.length - 1)]}
                  isAnimationActive={false}
                />
              ))}
            </BarChart>
          </ResponsiveContainer>
        </div>
      )}
    </section>
  );
}
