"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { type FetchedWorkflow, WorkflowTimeline, readWorkflow } from "@/components/workflows/workflow-trace";
import { apiRequest } from "@/components/room/api";
import type { AdminWorkflow } from "@/lib/admin/find-workflow";
import type { WorkflowPage } from "@/lib/workflows/read-workflow";
import { queryString } from "./admin-api";
import { formatDollars, formatDuration } from "./admin-format";
import { Ago } from "./time-text";
import { RoomPicker } from "./room-picker";

/** Messages a timeline reads at once; the export has the rest. */
const TIMELINE_LIMIT = 1000;

/** A workflow found by its correlation id as it arrives, its messages not yet read by the shared schema. */
type FetchedAdminWorkflow = Omit<AdminWorkflow, "workflow"> & { workflow: FetchedWorkflow };

/**
 * Workflows by correlation id: paste one to see its timeline, wherever it ran, or pick a room to
 * list its workflows, newest first.
 */
export function WorkflowsView({ initialId, initialRoom }: { initialId: string | null; initialRoom: { id: string; title: string } | null }) {
  const router = useRouter();
  const [id, setId] = useState(initialId);
  const [text, setText] = useState(initialId ?? "");
  const [room, setRoom] = useState(initialRoom);
  const navigate = (next: { id?: string | null; room?: { id: string; title: string } | null }) => {
    const nextId = next.id !== undefined ? next.id : id;
    const nextRoom = next.room !== undefined ? next.room : room;
    setId(nextId);
    setRoom(nextRoom);
    router.replace(`/admin/workflows${queryString({ id: nextId, room: nextRoom?.id, room_title: nextRoom?.title })}`, { scroll: false });
  };
  const workflowUrl = `/api/admin/workflows/${encodeURIComponent(id ?? "")}${queryString({ limit: TIMELINE_LIMIT })}`;
  const workflow = useQuery({
    queryKey: ["admin", workflowUrl],
    queryFn: async () => {
      const found = await apiRequest<FetchedAdminWorkflow>(workflowUrl, "GET");
      return { ...found, ...readWorkflow(found.workflow, `workflow ${id}`) };
    },
    refetchInterval: 3000,
    enabled: !!id,
  });
  const list = useInfiniteQuery({
    queryKey: ["admin", "workflows", room?.id],
    queryFn: ({ pageParam }) =>
      apiRequest<WorkflowPage>(`/api/admin/workflows${queryString({ room: room?.id, cursor: pageParam, limit: 20 })}`, "GET"),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    enabled: !!room,
  });

  return (
    <div className="admin-page" data-testid="admin-workflows">
      <div className="admin-page__head">
        <h1>Workflows</h1>
        <span className="muted">Everything one correlation id ties together: runs, requests, questions, dialogues</span>
      </div>
      <form
        className="admin-toolbar"
        onSubmit={(event) => {
          event.preventDefault();
          navigate({ id: text.trim() || null });
        }}
      >
        <input
          className="admin-toolbar__wide"
          value={text}
          onChange={(event) => setText(event.target.value)}
          placeholder="Correlation id"
          aria-label="Correlation id"
          data-testid="workflow-id"
        />
        <button className="button button--primary" type="submit">
          Show
        </button>
        <RoomPicker room={room} onChange={(picked) => navigate({ room: picked })} label="Room's workflows" />
      </form>
      {room && (
        <section className="card">
          <h2 className="admin-section-title">Workflows in {room.title}</h2>
          {list.data?.pages[0]?.workflows.length === 0 && <p className="muted">No workflow has run in this room.</p>}
          <ul className="admin-plain-list admin-workflow-list">
            {list.data?.pages
              .flatMap((page) => page.workflows)
              .map((each) => (
                <li key={each.correlationId}>
                  <button
                    type="button"
                    className={`link-button${each.correlationId === id ? " is-on" : ""}`}
                    onClick={() => navigate({ id: each.correlationId })}
                  >
                    <code>{each.correlationId}</code>
                  </button>
                  <span className={`trace__status trace__status--${each.status}`}>{each.status}</span>
                  <span className="muted">
                    {each.runs} run{each.runs === 1 ? "" : "s"} · {each.durationMs === null ? "running" : formatDuration(each.durationMs)} ·{" "}
                    {formatDollars(each.costUsd)} · <Ago iso={each.startedAt} />
                  </span>
                  <span className="admin-workflow-list__prompt">{each.startedBy.prompt}</span>
                </li>
              ))}
          </ul>
          {list.hasNextPage && (
            <button type="button" className="button admin-more" onClick={() => list.fetchNextPage()}>
              Older workflows
            </button>
          )}
        </section>
      )}
      {id && (
        <section className="card" data-testid="admin-workflow">
          {workflow.error && <p className="form-error">{workflow.error.message}</p>}
          {!workflow.data && !workflow.error && <p className="muted">Reading…</p>}
          {workflow.data && (
            <>
              <div className="admin-page__head">
                <h2>
                  <code>{id}</code>
                </h2>
                <span className="muted">
                  in <Link href={`/admin/rooms/${workflow.data.room.id}`}>{workflow.data.room.title}</Link> ·{" "}
                  <Link href={`/rooms/${workflow.data.room.id}`}>open the room</Link>
                </span>
              </div>
              <div className="admin-scroll">
                <WorkflowTimeline
                  trace={workflow.data.workflow}
                  unreadable={workflow.data.unreadable.length}
                  agents={workflow.data.agents}
                  nodeText={() => undefined}
                  exportHref={`/api/rooms/${workflow.data.room.id}/workflows/${encodeURIComponent(id)}/export`}
                />
              </div>
              <h3 className="admin-section-title">Runs</h3>
              <ul className="admin-plain-list">
                {workflow.data.workflow.runList.map((run) => (
                  <li key={run.id}>
                    <Link href={`/admin/runs/${run.id}`}>
                      {workflow.data.agents.find((agent) => agent.id === run.agentId)?.name ?? run.agentId}
                    </Link>{" "}
                    <span className="muted">
                      {run.status} · {run.steps} step{run.steps === 1 ? "" : "s"} · {formatDollars(run.costUsd)}
                    </span>
                  </li>
                ))}
              </ul>
            </>
          )}
        </section>
      )}
      {!id && !room && (
        <p className="empty">Paste a correlation id (a run’s page links to its own), or pick a room to list its workflows.</p>
      )}
    </div>
  );
}
