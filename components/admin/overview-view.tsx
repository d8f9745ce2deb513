"use client";

import Link from "next/link";
import { useState } from "react";
import type { AdminRunRow } from "@/lib/admin/admin-runs";
import type { Overview } from "@/lib/admin/read-overview";
import type { Allowance } from "@/lib/limits/budget";
import { queryString, useAdminQuery } from "./admin-api";
import { formatDollars, formatTokens } from "./admin-format";
import { Ago } from "./time-text";
import { UsageChart } from "./usage-charts";

const RANGES = [
  { value: "day", label: "24 hours" },
  { value: "week", label: "7 days" },
  { value: "month", label: "30 days" },
] as const;

function Stat({
  label,
  value,
  detail,
  tone,
  testId,
}: {
  label: string;
  value: string;
  detail?: string;
  tone?: "warn" | "danger";
  testId: string;
}) {
  return (
    <div className={`admin-stat${tone ? ` admin-stat--${tone}` : ""}`} data-testid={testId}>
      <span className="admin-stat__label">{label}</span>
      <strong className="admin-stat__value">{value}</strong>
      {detail && <span className="admin-stat__detail">{detail}</span>}
    </div>
  );
}

function budgetLine(allowance: Allowance, format: (value: number) => string): string {
  if (allowance.limit === null) return "no daily budget";
  return `${format(allowance.left ?? 0)} left of ${format(allowance.limit)} today`;
}

/**
 * The instance at a glance: rooms, people watching, runs under way, what the models spent today
 * and this week against the budgets, and charts of tokens and cost over time by model or agent.
 */
export function OverviewView({ initial }: { initial: Overview }) {
  const [range, setRange] = useState<Overview["usage"]["range"]>(initial.usage.range);
  const [breakdown, setBreakdown] = useState<"model" | "agent">("model");
  const { data } = useAdminQuery<{ overview: Overview }>(`/api/admin/overview${queryString({ range })}`, {
    refreshMs: 5000,
    initialData: range === initial.usage.range ? { overview: initial } : undefined,
  });
  const { data: running } = useAdminQuery<{ runs: AdminRunRow[] }>("/api/admin/runs?status=running&limit=6", { refreshMs: 2000 });
  const overview = data?.overview ?? initial;
  const { spend, budget, runs, rooms, watching, usage } = overview;
  const series = breakdown === "model" ? usage.byModel : usage.byAgent;
  const tokenBudgetSpent = budget.tokens.limit !== null && budget.tokens.left === 0;
  const costBudgetSpent = budget.costUsd.limit !== null && budget.costUsd.left === 0;

  return (
    <div className="admin-page" data-testid="admin-overview">
      <div className="admin-page__head">
        <h1>Overview</h1>
        <span className="muted">
          Days are UTC · updated <Ago iso={overview.generatedAt} />
        </span>
      </div>
      <div className="admin-stats">
        <Stat
          testId="stat-rooms"
          label="Rooms"
          value={rooms.total.toLocaleString("en-US")}
          detail={`${rooms.activeToday.toLocaleString("en-US")} active today`}
        />
        <Stat
          testId="stat-watching"
          label="Watching"
          value={watching.connections.toLocaleString("en-US")}
          detail={`in ${watching.rooms.toLocaleString("en-US")} room${watching.rooms === 1 ? "" : "s"}`}
        />
        <Stat
          testId="stat-running"
          label="Runs running"
          value={String(runs.running)}
          detail={`${runs.queued} queued`}
          tone={runs.queued > 20 ? "warn" : undefined}
        />
        <Stat
          testId="stat-failed"
          label="Failed today"
          value={String(runs.failedToday)}
          tone={runs.failedToday > 0 ? "danger" : undefined}
        />
        <Stat
          testId="stat-tokens-today"
          label="Tokens today"
          value={formatTokens(spend.today.inputTokens + spend.today.outputTokens)}
          detail={budgetLine(budget.tokens, formatTokens)}
          tone={tokenBudgetSpent ? "danger" : undefined}
        />
        <Stat
          testId="stat-cost-today"
          label="Cost today"
          value={formatDollars(spend.today.costUsd)}
          detail={budgetLine(budget.costUsd, formatDollars)}
          tone={costBudgetSpent ? "danger" : undefined}
        />
        <Stat
          testId="stat-tokens-week"
          label="Tokens this week"
          value={formatTokens(spend.week.inputTokens + spend.week.outputTokens)}
          detail={`${spend.week.calls.toLocaleString("en-US")} model calls`}
        />
        <Stat testId="stat-cost-week" label="Cost this week" value={formatDollars(spend.week.costUsd)} detail="since Monday" />
      </div>

      <div className="admin-toolbar">
        <fieldset className="admin-segmented">
          <legend className="visually-hidden">Range</legend>
          {RANGES.map((option) => (
            <button
              key={option.value}
              type="button"
              className={range === option.value ? "is-on" : ""}
              aria-pressed={range === option.value}
              onClick={() => setRange(option.value)}
            >
              {option.label}
            </button>
          ))}
        </fieldset>
        <fieldset className="admin-segmented">
          <legend className="visually-hidden">Break down by</legend>
          <button
            type="button"
            className={breakdown === "model" ? "is-on" : ""}
            aria-pressed={breakdown === "model"}
            onClick={() => setBreakdown("model")}
            data-testid="by-model"
          >
            By model
          </button>
          <button
            type="button"
            className={breakdown === "agent" ? "is-on" : ""}
            aria-pressed={breakdown === "agent"}
            onClick={() => setBreakdown("agent")}
            data-testid="by-agent"
          >
            By agent
          </button>
        </fieldset>
      </div>
      <div className="admin-charts">
        <UsageChart title="Tokens" metric="tokens" buckets={usage.buckets} bucketMs={usage.bucketMs} series={series} />
        <UsageChart title="Cost (USD)" metric="costUsd" buckets={usage.buckets} bucketMs={usage.bucketMs} series={series} />
      </div>

      <section className="card admin-running" data-testid="running-now">
        <div className="admin-chart__head">
          <h3>Running now</h3>
          <Link href="/admin/runs">All runs →</Link>
        </div>
        {!running?.runs.length ? (
          <p className="muted">No agent is running.</p>
        ) : (
          <ul className="admin-running__list">
            {running.runs.map((run) => (
              <li key={run.id}>
                <span className="admin-dot" style={{ background: run.agentColor }} />
                <Link href={`/admin/runs/${run.id}`}>{run.agentName}</Link>
                <span className="muted"> in {run.roomTitle}</span>
                <span className="admin-running__meta">
                  step {run.steps + 1} · started {run.startedAt ? <Ago iso={run.startedAt} /> : "—"}
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
