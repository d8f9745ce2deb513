"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { apiRequest } from "@/components/room/api";
import { useHydrated } from "@/components/ui/local-time";
import type { AdminRunRow } from "@/lib/admin/admin-runs";
import { queryString } from "./admin-api";
import { RUN_STATUS_LABEL, formatDollars, formatDuration, formatTokens } from "./admin-format";
import { AgentPicker } from "./agent-picker";
import { RoomPicker } from "./room-picker";
import type { PickerChoice } from "./search-picker";
import { RunActions } from "./run-actions";
import { Ago } from "./time-text";

export interface RunFilters {
  status: AdminRunRow["status"] | null;
  room: { id: string; title: string } | null;
  /** An agent by id, or every agent of a name (`value`), as the chip names it (`label`). */
  agent: PickerChoice | null;
}

const PAGE = 25;
const STATUSES = ["queued", "running", "succeeded", "failed", "cancelled"] as const;

type RunsPage = { runs: AdminRunRow[]; nextCursor: string | null };

export function RunStatus({ status, cancelRequested }: { status: AdminRunRow["status"]; cancelRequested?: boolean }) {
  return (
    <span className={`admin-status admin-status--${status}`} data-testid="run-status">
      {cancelRequested && status === "running" ? "stopping" : RUN_STATUS_LABEL[status]}
    </span>
  );
}

/** How long a run took, or has been going (unknown until the page knows the viewer's clock: `now` null). */
export function runDuration(run: Pick<AdminRunRow, "startedAt" | "finishedAt">, now: number | null): string {
  if (!run.startedAt) return "—";
  const end = run.finishedAt ? Date.parse(run.finishedAt) : now;
  return end === null ? "—" : formatDuration(end - Date.parse(run.startedAt));
}

/**
 * Every room's runs, newest first and live (the loaded pages are read again every two seconds),
 * filtered by status, room and agent (picked by name across the instance, or in the chosen room);
 * a run opens its steps, and can be cancelled or retried here.
 */
export function RunsView({ initialFilters, initialPage }: { initialFilters: RunFilters; initialPage: RunsPage }) {
  const router = useRouter();
  const [filters, setFilters] = useState<RunFilters>(initialFilters);
  const change = (next: Partial<RunFilters>) => {
    const merged = { ...filters, ...next };
    // An agent picked in another room would match nothing in this one.
    if (next.room && next.agent === undefined) merged.agent = null;
    setFilters(merged);
    router.replace(
      `/admin/runs${queryString({ status: merged.status, room: merged.room?.id, room_title: merged.room?.title, agent: merged.agent?.value, agent_label: merged.agent?.label })}`,
      { scroll: false },
    );
  };
  const filterQuery = { status: filters.status, room: filters.room?.id, agent: filters.agent?.value };
  const unchanged =
    filters.status === initialFilters.status &&
    filters.room?.id === initialFilters.room?.id &&
    filters.agent?.value === initialFilters.agent?.value;
  const runs = useInfiniteQuery({
    queryKey: ["admin", "runs", filterQuery],
    queryFn: ({ pageParam }) =>
      apiRequest<RunsPage>(`/api/admin/runs${queryString({ ...filterQuery, cursor: pageParam, limit: PAGE })}`, "GET"),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    refetchInterval: 2000,
    initialData: unchanged ? { pages: [initialPage], pageParams: [null] } : undefined,
  });
  const rows = runs.data?.pages.flatMap((page) => page.runs) ?? [];
  // Until the page has hydrated, the viewer's clock is not known (see useHydrated).
  const now = useHydrated() ? Date.now() : null;

  return (
    <div className="admin-page" data-testid="admin-runs">
      <div className="admin-page__head">
        <h1>Runs</h1>
        <span className="muted">Newest first · live</span>
      </div>
      <div className="admin-toolbar">
        <select
          aria-label="Status"
          data-testid="status-filter"
          value={filters.status ?? ""}
          onChange={(event) => change({ status: (event.target.value || null) as RunFilters["status"] })}
        >
          <option value="">Any status</option>
          {STATUSES.map((status) => (
            <option key={status} value={status}>
              {RUN_STATUS_LABEL[status]}
            </option>
          ))}
        </select>
        <RoomPicker room={filters.room} onChange={(picked) => change({ room: picked })} />
        <AgentPicker agent={filters.agent} room={filters.room?.id ?? null} onChange={(picked) => change({ agent: picked })} />
      </div>
      {runs.error && <p className="form-error">{runs.error.message}</p>}
      <table className="admin-table admin-table--runs" aria-label="Runs">
        <thead>
          <tr className="admin-table__row admin-table__row--head">
            <th scope="col">Status</th>
            <th scope="col">Agent · room</th>
            <th scope="col">Prompt</th>
            <th scope="col">Steps</th>
            <th scope="col">Tokens · cost</th>
            <th scope="col">When</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && !runs.isFetching && (
            <tr>
              <td className="empty">No runs match.</td>
            </tr>
          )}
          {rows.map((run) => (
            <tr key={run.id} className="admin-table__row" data-testid="run-row" data-run-id={run.id} data-status={run.status}>
              <td>
                <RunStatus status={run.status} cancelRequested={run.cancelRequested} />
              </td>
              <td className="admin-table__who">
                <span className="admin-dot" style={{ background: run.agentColor }} />
                <Link href={`/admin/runs/${run.id}`} data-testid="run-open">
                  {run.agentName}
                </Link>
                <button
                  type="button"
                  className="link-button"
                  title="Only this room's runs"
                  onClick={() => change({ room: { id: run.roomId, title: run.roomTitle } })}
                >
                  {run.roomTitle}
                </button>
              </td>
              <td className="admin-table__prompt" title={run.prompt}>
                {run.error ? <span className="form-error">{run.error.error_message}</span> : run.prompt}
              </td>
              <td className="admin-table__num" data-label="steps">
                {run.steps}
                {run.attempts > 1 && <span className="muted"> · {run.attempts} attempts</span>}
              </td>
              <td className="admin-table__num">
                {formatTokens(run.inputTokens + run.outputTokens)} · {formatDollars(run.costUsd)}
              </td>
              <td className="muted">
                <Ago iso={run.createdAt} now={now} />
                {run.startedAt && ` · ${runDuration(run, now)}`}
              </td>
              <td>
                <RunActions run={run} compact />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs.hasNextPage && (
        <button type="button" className="button admin-more" disabled={runs.isFetchingNextPage} onClick={() => runs.fetchNextPage()}>
          {runs.isFetchingNextPage ? "Reading…" : "Older runs"}
        </button>
      )}
    </div>
  );
}
