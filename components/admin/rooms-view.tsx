"use client";

import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { apiRequest, apiWrite } from "@/components/room/api";
import { useSubmit } from "@/components/ui/use-submit";
import type { AdminRoom } from "@/lib/rooms/list-rooms-for-admin";
import type { PruneResult } from "@/lib/rooms/prune-rooms";
import { queryString } from "./admin-api";
import { Ago } from "./time-text";

type RoomsPage = { rooms: AdminRoom[]; nextCursor: string | null };

/** Prune rooms idle for more than N days: see which first, then delete them. */
function PruneRooms({ onPruned }: { onPruned: (message: string) => void }) {
  const [days, setDays] = useState(30);
  const [preview, setPreview] = useState<Omit<PruneResult, "deletedIds"> | null>(null);
  const { error, submit } = useSubmit();
  /** Lists the rooms a prune would delete (a dry run), or deletes them. */
  const ask = (dryRun: boolean) =>
    submit(async () => {
      const result = await apiWrite<Omit<PruneResult, "deletedIds">>("/api/admin/rooms/prune", "POST", { idleDays: days, dryRun });
      if (dryRun) setPreview(result);
      else {
        setPreview(null);
        onPruned(`Pruned ${result.count} room${result.count === 1 ? "" : "s"} idle for more than ${days} days.`);
      }
    });
  return (
    <section className="card admin-prune" data-testid="admin-prune">
      <form className="admin-toolbar" onSubmit={ask(true)}>
        <label>
          Prune rooms idle for more than{" "}
          <input
            type="number"
            min={1}
            max={3650}
            value={days}
            onChange={(event) => (setDays(Number(event.target.value)), setPreview(null))}
            aria-label="Days idle"
            data-testid="prune-days"
          />{" "}
          days
        </label>
        <button className="button" type="submit" data-testid="prune-preview">
          Which?
        </button>
        {preview && preview.count > 0 && (
          <button
            className="button button--danger"
            type="button"
            data-testid="prune-confirm"
            onClick={(event) =>
              window.confirm(`Delete ${preview.count} room${preview.count === 1 ? "" : "s"} and everything in them?`) &&
              void ask(false)(event)
            }
          >
            Delete {preview.count} room{preview.count === 1 ? "" : "s"}
          </button>
        )}
      </form>
      {preview && (
        <p className="muted" data-testid="prune-result">
          {preview.count === 0
            ? "No room has been idle that long (rooms someone has open, or with a run under way, are never pruned)."
            : `${preview.count} room${preview.count === 1 ? "" : "s"} last active before ${new Date(preview.cutoff).toLocaleDateString("en-GB")}: ${preview.rooms.map((room) => `“${room.title}”`).join(", ")}${preview.count > preview.rooms.length ? ", …" : ""}`}
        </p>
      )}
      {error && <p className="form-error">{error}</p>}
    </section>
  );
}

/** Rooms by latest activity, a page at a time: title, template, agents and their models, watchers, runs, events. */
export function RoomsView({ initialPage }: { initialPage: RoomsPage }) {
  const queryClient = useQueryClient();
  const [search, setSearch] = useState("");
  const [idleDays, setIdleDays] = useState<number | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const filters = { q: search.trim() || undefined, idle_days: idleDays ?? undefined };
  const rooms = useInfiniteQuery({
    queryKey: ["admin", "rooms", filters],
    queryFn: ({ pageParam }) =>
      apiRequest<RoomsPage>(`/api/admin/rooms${queryString({ ...filters, cursor: pageParam, limit: 20 })}`, "GET"),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    refetchInterval: 10_000,
    initialData: !filters.q && !filters.idle_days ? { pages: [initialPage], pageParams: [null] } : undefined,
  });
  const rows = rooms.data?.pages.flatMap((page) => page.rooms) ?? [];
  return (
    <div className="admin-page" data-testid="admin-rooms">
      <div className="admin-page__head">
        <h1>Rooms</h1>
        <span className="muted">Latest activity first</span>
      </div>
      {message && (
        <p className="banner" role="status">
          {message}
        </p>
      )}
      <div className="admin-toolbar">
        <input
          className="admin-toolbar__wide"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
          placeholder="Title contains…"
          aria-label="Search titles"
          data-testid="rooms-search"
        />
        <select
          aria-label="Idle for"
          value={idleDays ?? ""}
          onChange={(event) => setIdleDays(event.target.value ? Number(event.target.value) : null)}
        >
          <option value="">Any activity</option>
          <option value="7">Idle more than 7 days</option>
          <option value="30">Idle more than 30 days</option>
          <option value="90">Idle more than 90 days</option>
        </select>
      </div>
      <PruneRooms
        onPruned={(text) => {
          setMessage(text);
          void queryClient.invalidateQueries({ queryKey: ["admin"] });
        }}
      />
      <table className="admin-table admin-table--rooms" aria-label="Rooms">
        <thead>
          <tr className="admin-table__row admin-table__row--head">
            <th scope="col">Room</th>
            <th scope="col">Agents and models</th>
            <th scope="col">Watching</th>
            <th scope="col">Runs</th>
            <th scope="col">Events</th>
            <th scope="col">Last activity</th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && !rooms.isFetching && (
            <tr>
              <td className="empty">No rooms match.</td>
            </tr>
          )}
          {rows.map((room) => (
            <tr key={room.id} className="admin-table__row" data-testid="admin-room" data-room-id={room.id}>
              <td>
                <Link href={`/admin/rooms/${room.id}`} data-testid="admin-room-open">
                  {room.title}
                </Link>
                <span className="muted admin-table__sub">{room.template}</span>
              </td>
              <td className="admin-agents">
                {room.agents.map((agent) => (
                  <span
                    key={agent.id}
                    className={`admin-agent${agent.unavailableReason ? " admin-agent--off" : ""}`}
                    title={agent.unavailableReason ?? `${agent.name}: ${agent.model}`}
                  >
                    <span className="admin-dot" style={{ background: agent.color }} />
                    {agent.name} <code>{agent.model}</code>
                    {agent.unavailableReason && " ⚠"}
                  </span>
                ))}
              </td>
              <td className="admin-table__num" data-label="watching">
                {room.watching}
              </td>
              <td className="admin-table__num" data-label="runs">
                {room.activeRuns > 0 ? (
                  <Link href={`/admin/runs?room=${room.id}&room_title=${encodeURIComponent(room.title)}`}>{room.activeRuns} active</Link>
                ) : (
                  <span className="muted">idle</span>
                )}
              </td>
              <td className="admin-table__num" data-label="events">
                {room.lastSeq.toLocaleString("en-US")}
              </td>
              <td className="muted">
                <Ago iso={room.lastActivityAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rooms.hasNextPage && (
        <button type="button" className="button admin-more" disabled={rooms.isFetchingNextPage} onClick={() => rooms.fetchNextPage()}>
          {rooms.isFetchingNextPage ? "Reading…" : "More rooms"}
        </button>
      )}
    </div>
  );
}
