"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { apiRequest } from "@/components/room/api";
import type { AdminActionDto } from "@/lib/admin/admin-actions";
import { queryString } from "./admin-api";
import { Clock } from "./time-text";
import { RoomPicker } from "./room-picker";

type AuditPage = { actions: AdminActionDto[]; nextCursor: string | null };

/** Every change made from the dashboard, newest first: when, who, what, in which room — rooms since deleted included. */
export function AuditView({ initialPage }: { initialPage: AuditPage }) {
  const [room, setRoom] = useState<{ id: string; title: string } | null>(null);
  const audit = useInfiniteQuery({
    queryKey: ["admin", "audit", room?.id],
    queryFn: ({ pageParam }) =>
      apiRequest<AuditPage>(`/api/admin/audit${queryString({ room: room?.id, cursor: pageParam, limit: 50 })}`, "GET"),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    refetchInterval: 10_000,
    initialData: room ? undefined : { pages: [initialPage], pageParams: [null] },
  });
  const actions = audit.data?.pages.flatMap((page) => page.actions) ?? [];
  return (
    <div className="admin-page" data-testid="admin-audit">
      <div className="admin-page__head">
        <h1>Audit trail</h1>
        <span className="muted">Every admin change; a room’s own log has the ones that concern it</span>
      </div>
      <div className="admin-toolbar">
        <RoomPicker room={room} onChange={setRoom} />
      </div>
      {actions.length === 0 && !audit.isFetching && <p className="empty">No admin has changed anything yet.</p>}
      <ol className="admin-events">
        {actions.map((action) => (
          <li key={action.id} className="admin-event" data-testid="audit-row" data-action={action.action}>
            <details>
              <summary>
                <Clock className="muted" iso={action.at} />
                <code className="admin-event__type">{action.action}</code>
                <strong>{action.actor}</strong>
                <span className="admin-event__text">{action.summary.charAt(0).toUpperCase() + action.summary.slice(1)}</span>
                {action.roomId && action.roomExists && (
                  <Link href={`/admin/rooms/${action.roomId}`} className="muted">
                    in {action.roomTitle}
                  </Link>
                )}
                {action.roomId && !action.roomExists && action.action !== "room.deleted" && (
                  <span className="muted">in “{action.roomTitle ?? action.roomId}” (deleted since)</span>
                )}
              </summary>
              <pre className="admin-json">{JSON.stringify(action.details, null, 2)}</pre>
            </details>
          </li>
        ))}
      </ol>
      {audit.hasNextPage && (
        <button type="button" className="button admin-more" onClick={() => audit.fetchNextPage()}>
          Older changes
        </button>
      )}
    </div>
  );
}
