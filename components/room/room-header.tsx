"use client";

import Link from "next/link";
import { useState } from "react";
import { useShallow } from "zustand/react/shallow";
import { useRoom } from "./room-store";
import { type RoomState, nextTurn, nextTurnLabel } from "./room-state";
import { useIsReplay } from "@/components/timeline/timeline-scope";
import { QuestionModeSwitch } from "@/components/broadcast/question-mode-switch";
import { useHydrated } from "@/components/ui/local-time";
import { SeatForm } from "./seat-form";
import { useServerNow } from "./use-server-now";
import { readableInk } from "@/components/ui/readable-color";

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
  const now = useServerNow(next !== null, 1000);
  // The countdown depends on the viewer's clock: the server's page says "soon" and the browser counts.
  const hydrated = useHydrated();
  if (!next) return null;
  return (
    <span className="watching next-turn" data-testid="next-turn" data-at={next.at ?? undefined}>
      next: <strong style={{ color: readableInk(next.agent.color) }}>{next.agent.name}</strong>{" "}
      {hydrated ? nextTurnLabel(next.at, now) : "soon"}
    </span>
  );
}

function compactTokens(tokens: number): string {
  if (tokens >= 1_000_000) return `${(tokens / 1_000_000).toFixed(1)}M`;
  if (tokens >= 10_000) return `${Math.floor(tokens / 1000)}k`;
  return tokens.toLocaleString("en-US");
}

/** What the room may still spend today, when a budget applies: "$4.20 · 80k tokens left today". */
function BudgetLeft() {
  const budget = useRoom((state) => state.budget);
  if (!budget) return null;
  const parts = [
    budget.costLeftUsd !== null ? `$${budget.costLeftUsd.toFixed(2)}` : null,
    budget.tokensLeft !== null ? `${compactTokens(budget.tokensLeft)} tokens` : null,
  ].filter(Boolean);
  const spent = budget.costLeftUsd === 0 || budget.tokensLeft === 0;
  const limits = [
    budget.costLimitUsd !== null ? `$${budget.costLimitUsd.toFixed(2)}` : null,
    budget.tokenLimit !== null ? `${budget.tokenLimit.toLocaleString("en-US")} tokens` : null,
  ].filter(Boolean);
  return (
    <span
      className={spent ? "connection connection--closed" : "watching"}
      data-testid="budget-left"
      title={`Today's budget: ${limits.join(" and ")}; whole again at midnight UTC`}
    >
      {spent ? "Budget spent for today" : `${parts.join(" · ")} left today`}
    </span>
  );
}

/**
 * The room's name and where it stands. On a phone it keeps to one line (name, connection, and a
 * "Room" button); the rest (who starts next, the budget, who watches, the seat) opens under it.
 */
export function RoomHeader() {
  const { title, template, watching, participants, connection, unreadable } = useRoom(useShallow(selectHeader));
  const isReplay = useIsReplay();
  const [open, setOpen] = useState(false);
  return (
    <header className={`room-header${open ? " room-header--open" : ""}`}>
      <Link href="/" className="brand" title="All rooms">
        Parley<span className="visually-hidden">: all rooms</span>
      </Link>
      <div className="room-header__title">
        <h1 data-testid="room-title">{title}</h1>
        <span className="badge">{template.replace(/-/g, " ")}</span>
      </div>
      <span className={`connection connection--${connection}`} data-testid="connection-status" data-state={connection}>
        {CONNECTION_LABELS[connection]}
      </span>
      <button
        type="button"
        className="button room-header__more"
        aria-expanded={open}
        aria-controls="room-header-status"
        data-testid="room-header-more"
        onClick={() => setOpen((shown) => !shown)}
      >
        Room
      </button>
      <div className="room-header__status" id="room-header-status">
        {unreadable > 0 && (
          <span className="connection connection--closed" data-testid="unreadable-events" title="Reload the page to see everything">
            {unreadable} update{unreadable === 1 ? "" : "s"} not shown
          </span>
        )}
        <NextTurn />
        <BudgetLeft />
        <span className="watching" data-testid="watching-count">
          {watching} watching
        </span>
        {participants > 0 && (
          <span className="watching" data-testid="participant-count" title="People with a seat: they can edit and answer">
            {participants} seated
          </span>
        )}
        {isReplay ? (
          <span className="watching" data-testid="replay-read-only" title="A replay of a shared file: nobody takes a seat in it">
            Read-only replay
          </span>
        ) : (
          <>
            <QuestionModeSwitch />
            <SeatForm />
          </>
        )}
      </div>
    </header>
  );
}
