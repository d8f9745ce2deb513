"use client";

import Link from "next/link";
import { useShallow } from "zustand/react/shallow";
import { useRoom } from "./room-store";
import { type RoomState, nextTurn, nextTurnLabel } from "./room-state";
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
  if (!next) return null;
  return (
    <span className="watching next-turn" data-testid="next-turn" data-at={next.at ?? undefined}>
      next: <strong style={{ color: readableInk(next.agent.color) }}>{next.agent.name}</strong> {nextTurnLabel(next.at, now)}
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
        <BudgetLeft />
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
