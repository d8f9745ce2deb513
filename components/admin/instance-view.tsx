"use client";

import Link from "next/link";
import type { InstanceStatus } from "@/lib/admin/read-instance";
import { useAdminQuery } from "./admin-api";
import { formatAgo, formatDuration } from "./admin-format";
import { AdminSessionsCard } from "./admin-sessions-card";
import { InstanceBudgetsForm } from "./instance-budgets-form";

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/**
 * How the instance is running: who holds the scheduler and when it ticks next, every live
 * worker (idle or not) with its last heartbeat and the runs it holds, every instance seen, the
 * server's daily budgets (set here), the database and its migrations, and the providers.
 */
export function InstanceView({ initial }: { initial: InstanceStatus }) {
  const { data } = useAdminQuery<{ instance: InstanceStatus }>("/api/admin/instance", {
    initialData: { instance: initial },
    refreshMs: 2000,
  });
  const status = data?.instance ?? initial;
  const { scheduler, database } = status;
  const now = Date.parse(status.generatedAt);
  return (
    <div className="admin-page" data-testid="admin-instance">
      <div className="admin-page__head">
        <h1>Instance</h1>
        <span className="muted">
          Answered by <code>{status.instance.id}</code> · up {formatDuration(status.instance.uptimeSeconds * 1000)} · Node{" "}
          {status.instance.node}
        </span>
      </div>
      <div className="admin-cards">
        <section className="card" data-testid="instance-scheduler">
          <h2 className="admin-section-title">Scheduler</h2>
          <dl className="admin-facts admin-facts--stacked">
            <Fact label="Held by">
              {scheduler.held ? (
                <code>{scheduler.holder}</code>
              ) : (
                <span className="form-error">
                  nobody{scheduler.holder ? ` (the lease of ${scheduler.holder} lapsed; the next instance to tick takes it)` : ""}
                </span>
              )}
              {scheduler.held && scheduler.holder === status.instance.id && <span className="muted"> (this instance)</span>}
            </Fact>
            <Fact label="Next tick">
              {scheduler.nextTickAt
                ? `${formatAgo(scheduler.nextTickAt, now)} (every second; last ${formatAgo(scheduler.lastTickAt!, now)})`
                : "—"}
            </Fact>
            <Fact label="Lease until">{scheduler.leaseExpiresAt ? formatAgo(scheduler.leaseExpiresAt, now) : "—"}</Fact>
            <Fact label="Rooms on a timer">{scheduler.rooms}</Fact>
            <Fact label="Next agent starts">
              {scheduler.nextTurn ? (
                <>
                  <Link href={`/admin/rooms/${scheduler.nextTurn.roomId}`}>{scheduler.nextTurn.title}</Link>{" "}
                  {formatAgo(scheduler.nextTurn.at, now)}
                  {scheduler.nextTurn.waitingForViewers && <span className="muted"> — once someone opens it</span>}
                </>
              ) : (
                "no room has the scheduler on"
              )}
            </Fact>
          </dl>
        </section>
        <section className="card" data-testid="instance-database">
          <h2 className="admin-section-title">Database</h2>
          <dl className="admin-facts admin-facts--stacked">
            <Fact label="Driver">{database.driver === "pglite" ? "PGlite (embedded, one process)" : "PostgreSQL"}</Fact>
            <Fact label="Server version">{database.version}</Fact>
            <Fact label="Migrations">
              <span data-testid="instance-migrations">
                {database.migrations.applied} of {database.migrations.available} applied
              </span>
              {database.migrations.latest && (
                <>
                  {" "}
                  · latest <code>{database.migrations.latest}</code>
                </>
              )}
            </Fact>
            {database.migrations.pending.length > 0 && <Fact label="Pending">{database.migrations.pending.join(", ")}</Fact>}
          </dl>
        </section>
        <section className="card" data-testid="instance-budgets-card">
          <h2 className="admin-section-title">Daily budgets for the whole server</h2>
          <InstanceBudgetsForm budgets={status.budgets} />
        </section>
        <section className="card" data-testid="instance-providers">
          <h2 className="admin-section-title">Model providers</h2>
          <ul className="admin-plain-list">
            {status.providers.map((provider) => (
              <li key={provider.provider}>
                <span className={`admin-provider${provider.configured ? "" : " admin-provider--off"}`}>
                  {provider.configured ? "configured" : "not configured"}
                </span>{" "}
                <code>{provider.provider}</code>
                {provider.reason && <span className="muted"> — {provider.reason}</span>}
              </li>
            ))}
          </ul>
        </section>
      </div>
      <AdminSessionsCard now={now} />
      <section className="card" data-testid="instance-workers">
        <h2 className="admin-section-title">Workers and their runs</h2>
        <p className="muted">
          This instance{" "}
          {status.instance.worker
            ? `runs agents (${status.instance.runsHere} run${status.instance.runsHere === 1 ? "" : "s"} now)`
            : "serves pages only (PARLEY_WORKER=0)"}
          .
        </p>
        {status.workers.length === 0 && <p className="muted">No worker is running.</p>}
        {status.workers.map((worker) => (
          <div key={worker.owner} className="admin-worker" data-testid="instance-worker" data-worker={worker.owner}>
            <strong>
              <code>{worker.owner}</code>
            </strong>{" "}
            <span className="muted">
              {worker.runs.length === 0 ? "idle" : `${worker.runs.length} run${worker.runs.length === 1 ? "" : "s"}`}
              {" · "}
              {worker.lastHeartbeatAt ? (
                <span data-testid="worker-heartbeat">last heartbeat {formatAgo(worker.lastHeartbeatAt, now)}</span>
              ) : (
                <span className="form-error">not heard from: its runs go to another worker once their leases lapse</span>
              )}
              {worker.startedAt && ` · started ${formatAgo(worker.startedAt, now)}`}
            </span>
            <ul className="admin-plain-list">
              {worker.runs.map((run) => (
                <li key={run.id}>
                  <Link href={`/admin/runs/${run.id}`}>{run.agentName}</Link> <span className="muted">in {run.roomTitle}</span>
                  <span className="muted">
                    {" "}
                    · started {run.startedAt ? formatAgo(run.startedAt, now) : "—"} · lease{" "}
                    {run.leaseExpiresAt ? formatAgo(run.leaseExpiresAt, now) : "—"}
                  </span>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </section>
      <section className="card" data-testid="instance-instances">
        <h2 className="admin-section-title">Instances seen</h2>
        <table className="admin-small-table">
          <thead>
            <tr>
              <th>Instance</th>
              <th>Viewers</th>
              <th>Runs</th>
              <th>Scheduler</th>
            </tr>
          </thead>
          <tbody>
            {status.instances.map((each) => (
              <tr key={each.id}>
                <td>
                  <code>{each.id}</code>
                  {each.id === status.instance.id && <span className="muted"> (this one)</span>}
                </td>
                <td>{each.viewers}</td>
                <td>{each.runs}</td>
                <td>{each.scheduler ? "holds it" : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </div>
  );
}
