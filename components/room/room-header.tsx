"use client";

import Link from "next/link";
import { useNow } from "@/components/ui/use-now";
import { useShallow } from "zustand/react/shallow";
import { useRoom } from "./room-store";
import { type RoomState, nextTurn, nextTurnLabel } from "./room-state";
import { SeatForm } from "./seat-form";

const CONNECTION_LABELS = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting…",
  closed: "Disconnected",
} as const;

const selectHeader = (state: RoomState) => ({
  title: state.room.title,
  template: state.room.template,
  watching: state.watching,
  participants: state.participants,
  connection: state.connection,
  unreadable: state.unreadableEvents,
});

/** "next: Storyteller in 12 s", counting down, while the room's scheduler is on. */
function NextTurn() {
  const next = useRoom(useShallow((state) => nextTurn(state)));
  const now = useNow(next !== null, 1000);
  if (!next) return null;
  return (
    <span className="watching next-turn" data-testid="next-turn" data-at={next.at ?? undefined}>
      next: <strong style={{ color: next.agent.color }}>{next.agent.name}</strong> {nextTurnLabel(next.at, now)}
    </span>
  );
}

export function RoomHeader() {
  const { title, template, watching, participants, connection, unreadable } = useRoom(useShallow(selectHeader));
  return (
    <header className="room-header">
      <Link href="/" className="brand" aria-label="All rooms">
        Parley
      </Link>
      <div className="room-header__title">
        <h1 data-testid="room-title">{title}</h1>
        <span className="badge">{template.replace(/-/g, " ")}</span>
      </div>
      <div className="room-header__status">
        <span className={`connection connection--${connection}`} data-testid="connection-status" data-state={connection}>
          {CONNECTION_LABELS[connection]}
        </span>
        {unreadable > 0 && (
          <span className="connection connection--closed" data-testid="unreadable-events" title="Reload the page to see everything">
            {unreadable} update{unreadable === 1 ? "" : "s"} not shown
          </span>
        )}
        <NextTurn />
        <span className="watching" data-testid="watching-count">
          {watching} watching
        </span>
        {participants > 0 && (
          <span className="watching" data-testid="participant-count" title="People with a seat: they can edit and answer">
            {participants} seated
          </span>
        )}
        <SeatForm />
      </div>
    </header>
  );
}
