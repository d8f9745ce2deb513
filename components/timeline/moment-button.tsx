"use client";

import { useTimelineContext } from "./timeline-scope";

/**
 * "Show the room at this moment": in a room page, moves its timeline to right after event `seq`;
 * anywhere else (the dashboard), links to the room opened at that moment (`/rooms/<id>?at=<seq>`).
 */
export function MomentButton({ roomId, seq }: { roomId: string; seq: number }) {
  const context = useTimelineContext();
  const label = `Show the room as it was after event #${seq}`;
  if (!context || context.live.getState().room.id !== roomId) {
    return (
      <a className="moment-button" href={`/rooms/${roomId}?at=${seq}`} title={label} aria-label={label} data-testid="show-moment">
        ↺
      </a>
    );
  }
  return (
    <button
      type="button"
      className="moment-button"
      title={label}
      aria-label={label}
      data-testid="show-moment"
      onClick={(click) => {
        click.stopPropagation();
        void context.timeline.seek(seq);
      }}
    >
      ↺
    </button>
  );
}
