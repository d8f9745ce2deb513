"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useState } from "react";
import { describeEvent } from "@/components/feed/describe-event";
import { UnreadableEvents, readFetchedEvents } from "@/components/feed/fetched-events";
import { apiRequest } from "@/components/room/api";
import type { EventLogPage } from "@/lib/events/browse-events";
import { type AgentDto, storedEventTypes } from "@/lib/protocol";
import { queryString } from "./admin-api";
import { Clock } from "./time-text";
import { MomentButton } from "@/components/timeline/moment-button";

const PAGE = 50;

/** A page of the log as it arrives, its events not yet read by the shared schema. */
type FetchedPage = Omit<EventLogPage, "events"> & { events: unknown };

/** A fetched page of `roomId`'s log, its events read by the shared schema: any it refuses is left out, reported and counted. */
export function readEventLogPage(page: FetchedPage, roomId: string) {
  return { ...readFetchedEvents(page.events, `room ${roomId}'s log`), nextBefore: page.nextBefore };
}

/**
 * A room's event log, newest first, filtered by type, sender and correlation id, fifty at a time
 * (older pages by sequence number), each event's whole message a click away; the export streams
 * every matching event as JSON Lines.
 */
export function EventLog({ roomId, agents }: { roomId: string; agents: AgentDto[] }) {
  const [type, setType] = useState("");
  const [agent, setAgent] = useState("");
  const [correlation, setCorrelation] = useState("");
  const filters = { type: type || undefined, agent: agent.trim() || undefined, correlation_id: correlation.trim() || undefined };
  const log = useInfiniteQuery({
    queryKey: ["admin", "events", roomId, filters],
    queryFn: async ({ pageParam }) => {
      const page = await apiRequest<FetchedPage>(
        `/api/admin/rooms/${roomId}/events${queryString({ ...filters, before: pageParam, limit: PAGE })}`,
        "GET",
      );
      return readEventLogPage(page, roomId);
    },
    initialPageParam: null as number | null,
    getNextPageParam: (last) => last.nextBefore,
    refetchInterval: 5000,
  });
  const events = log.data?.pages.flatMap((page) => page.events) ?? [];
  const unreadable = log.data?.pages.reduce((count, page) => count + page.unreadable.length, 0) ?? 0;
  return (
    <section className="card" data-testid="event-log">
      <div className="admin-page__head">
        <h2>Event log</h2>
        <a
          className="button button--small"
          href={`/api/admin/rooms/${roomId}/events/export${queryString(filters)}`}
          download
          data-testid="event-export"
        >
          Export (JSON Lines)
        </a>
      </div>
      <div className="admin-toolbar">
        <select aria-label="Type" value={type} onChange={(event) => setType(event.target.value)} data-testid="event-type-filter">
          <option value="">Any type</option>
          {[...storedEventTypes].sort().map((each) => (
            <option key={each}>{each}</option>
          ))}
        </select>
        <input
          list={`senders-${roomId}`}
          value={agent}
          onChange={(event) => setAgent(event.target.value)}
          placeholder="Sender (agent id, admin, …)"
          aria-label="Sender"
          data-testid="event-agent-filter"
        />
        <datalist id={`senders-${roomId}`}>
          {agents.map((each) => (
            <option key={each.id} value={each.id}>
              {each.name}
            </option>
          ))}
          <option value="admin">Admin</option>
          <option value="scheduler">Scheduler</option>
          <option value="system">Parley</option>
        </datalist>
        <input
          className="admin-toolbar__wide"
          value={correlation}
          onChange={(event) => setCorrelation(event.target.value)}
          placeholder="Correlation id"
          aria-label="Correlation id"
        />
      </div>
      {log.error && <p className="form-error">{log.error.message}</p>}
      <UnreadableEvents count={unreadable} />
      {events.length === 0 && unreadable === 0 && !log.isFetching && <p className="empty">No events match.</p>}
      <ol className="admin-events">
        {events.map((event) => {
          const line = describeEvent(event, { agents, nodeText: () => undefined });
          return (
            <li key={event.seq} className={`admin-event admin-event--${event.status}`} data-testid="event-row" data-type={event.type}>
              <details>
                <summary>
                  <span className="admin-event__seq">#{event.seq}</span>
                  <Clock className="muted" iso={event.timestamp} />
                  <code className="admin-event__type">{event.type}</code>
                  <strong>{event.agent_name}</strong>
                  <span className="admin-event__text">{line.text || line.message?.slice(0, 140) || line.chips?.join(", ") || ""}</span>
                </summary>
                <pre className="admin-json">{JSON.stringify(event, null, 2)}</pre>
              </details>
              {/* Beside the summary, not in it: a control inside another is one no keyboard or screen reader can tell apart. */}
              <MomentButton roomId={event.room_id} seq={event.seq} />
            </li>
          );
        })}
      </ol>
      {log.hasNextPage && (
        <button
          type="button"
          className="button admin-more"
          disabled={log.isFetchingNextPage}
          onClick={() => log.fetchNextPage()}
          data-testid="event-older"
        >
          {log.isFetchingNextPage ? "Reading…" : "Older events"}
        </button>
      )}
    </section>
  );
}
