"use client";

import { useMemo, useState } from "react";
import { useStore } from "zustand";
import { type MarkKind, type TimelineMark, describeMark } from "@/lib/timeline/marks";
import { ApiError, apiRequest } from "@/components/room/api";
import { PLAY_SPEEDS, type TimelineState } from "./timeline";
import { useTimeline, useTimelineContext } from "./timeline-scope";

/** Columns the marks are drawn in: a long room's marks share a column, the most telling kind shown. */
const MARK_COLUMNS = 160;
const KIND_RANK: Record<MarkKind, number> = { gate: 5, question: 4, dialogue: 3, edit: 2, run: 1 };
const MARK_LABELS: Record<MarkKind, string> = {
  run: "Runs",
  question: "Questions",
  dialogue: "Dialogues",
  gate: "Decisions",
  edit: "People's edits",
};

/** Groups marks into columns along the timeline, each drawn as its most telling kind, with every mark in its label. */
export function markColumns(marks: TimelineMark[], end: number, columns = MARK_COLUMNS) {
  const byColumn = new Map<number, TimelineMark[]>();
  if (end < 1) return [];
  for (const mark of marks) {
    if (mark.seq > end) continue;
    const column = end === 1 ? 0 : Math.min(columns - 1, Math.floor(((mark.seq - 1) / (end - 1)) * (columns - 1)));
    byColumn.set(column, [...(byColumn.get(column) ?? []), mark]);
  }
  return [...byColumn.entries()].map(([column, inColumn]) => {
    const top = inColumn.reduce((best, mark) => (KIND_RANK[mark.kind] > KIND_RANK[best.kind] ? mark : best));
    return {
      left: (column / (columns - 1)) * 100,
      kind: top.kind,
      seq: top.seq,
      label: inColumn
        .slice(0, 4)
        .map((mark) => `#${mark.seq} ${describeMark(mark)}`)
        .join("\n")
        .concat(inColumn.length > 4 ? `\n…and ${inColumn.length - 4} more` : ""),
    };
  });
}

function clock(iso: string | undefined): string {
  return iso ? new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" }) : "";
}

const selectBar = (state: TimelineState) => state;

/**
 * The timeline under the canvas: the room's history with its marks (runs, questions, dialogues,
 * decisions, people's edits); drag or step to any event and every panel shows the room as it
 * was right after it; play from there at 1×, 4× or 16×; "Live" comes back to the present. From
 * a moment, a seated person or an admin may continue the room in a new one.
 */
export function TimelineBar() {
  const context = useTimelineContext()!;
  const { timeline, live } = context;
  const state = useTimeline(selectBar);
  const liveSeq = useStore(live, (room) => room.lastSeq);
  const mayFork = useStore(live, (room) => (room.seat !== null || room.admin) && !room.deleted);
  const roomId = useStore(live, (room) => room.room.id);
  const title = useStore(live, (room) => room.room.title);
  const [forking, setForking] = useState(false);
  const end = Math.max(liveSeq, state.info?.lastSeq ?? 0);
  const position = state.at ?? end;
  const columns = useMemo(() => markColumns(state.marks, end), [state.marks, end]);
  const replay = state.info?.replay ?? null;
  const inPast = state.at !== null;
  const shownEvent = state.past?.feed.at(-1);
  const previousMark = [...state.marks].reverse().find((mark) => mark.seq < position);
  const nextMark = state.marks.find((mark) => mark.seq > position);

  return (
    <section className={`timeline${inPast ? " timeline--past" : ""}`} aria-label="Room history" data-testid="timeline">
      <div className="timeline__controls">
        {state.speed === null ? (
          PLAY_SPEEDS.map((speed) => (
            <button
              key={speed}
              type="button"
              className="timeline__button"
              data-testid={`timeline-play-${speed}`}
              title={`Play the room's history at ${speed}× from ${inPast ? "here" : "the start"}, skipping quiet stretches`}
              onClick={() => void timeline.play(speed)}
              disabled={end < 1}
            >
              ▶ {speed}×
            </button>
          ))
        ) : (
          <button type="button" className="timeline__button" data-testid="timeline-pause" onClick={() => timeline.pause()}>
            ❚❚ Pause ({state.speed}×)
          </button>
        )}
        <button
          type="button"
          className="timeline__button"
          aria-label="Previous marked moment"
          title={previousMark ? `#${previousMark.seq} ${describeMark(previousMark)}` : "No earlier marked moment"}
          data-testid="timeline-previous-mark"
          disabled={!previousMark}
          onClick={() => previousMark && void timeline.seek(previousMark.seq)}
        >
          ‹ mark
        </button>
        <button
          type="button"
          className="timeline__button"
          aria-label="Next marked moment"
          title={nextMark ? `#${nextMark.seq} ${describeMark(nextMark)}` : "No later marked moment"}
          data-testid="timeline-next-mark"
          disabled={!nextMark}
          onClick={() => nextMark && void timeline.seek(nextMark.seq)}
        >
          mark ›
        </button>
      </div>
      <div className="timeline__track">
        <div className="timeline__marks" aria-hidden="true">
          {columns.map((column) => (
            <span
              key={column.left}
              className={`timeline__mark timeline__mark--${column.kind}`}
              style={{ left: `${column.left}%` }}
              title={column.label}
            />
          ))}
        </div>
        <input
          type="range"
          className="timeline__slider"
          data-testid="timeline-slider"
          aria-label="Moment shown"
          aria-valuetext={
            inPast ? `After event ${position} of ${end}${shownEvent ? `, ${clock(shownEvent.timestamp)}` : ""}` : `Live, ${end} events`
          }
          min={1}
          max={Math.max(1, end)}
          step={1}
          value={Math.max(1, position)}
          onChange={(event) => void timeline.seek(Number(event.target.value))}
        />
      </div>
      <div className="timeline__status">
        <span
          className="timeline__position"
          data-testid="timeline-position"
          data-at={state.at ?? "live"}
          data-shown={inPast ? (state.past?.lastSeq ?? "") : "live"}
          aria-live="polite"
        >
          {state.reading
            ? "Reading the room's history…"
            : inPast
              ? `As it was after #${position} of ${end}${shownEvent ? ` · ${clock(shownEvent.timestamp)}` : ""}`
              : replay
                ? `Replay · ${end} events`
                : `Live · ${end} events`}
        </span>
        {replay ? (
          <span className="timeline__badge" data-testid="timeline-replay" title={`Digest ${replay.digest.slice(0, 16)}…`}>
            Replay of “{replay.title}”, read-only
          </span>
        ) : (
          <button
            type="button"
            className={`timeline__live${inPast ? "" : " timeline__live--on"}`}
            data-testid="timeline-live"
            aria-pressed={!inPast}
            disabled={!inPast}
            onClick={() => timeline.goLive()}
          >
            Live
            {inPast && state.arrived > 0 && (
              <span className="timeline__arrived" data-testid="timeline-arrived" title="Events that happened since you went back">
                +{state.arrived}
              </span>
            )}
          </button>
        )}
        {mayFork && !forking && (
          <button
            type="button"
            className="timeline__button"
            data-testid="timeline-fork"
            title="Start a new room from the room as it is at this moment, and let its agents carry on from there"
            onClick={() => setForking(true)}
          >
            Continue from here…
          </button>
        )}
        <a
          className="timeline__button"
          href={`/api/rooms/${roomId}/export`}
          download
          data-testid="timeline-export"
          title="Download the room's whole log, to replay it on any Parley"
        >
          Share as a file
        </a>
        <OriginAndForks info={state.info} />
        <span className="timeline__legend" aria-hidden="true">
          {(Object.keys(MARK_LABELS) as MarkKind[]).map((kind) => (
            <span key={kind} className={`timeline__key timeline__mark--${kind}`}>
              {MARK_LABELS[kind]}
            </span>
          ))}
        </span>
      </div>
      {forking && <ForkForm at={position} title={state.past?.room.title ?? title} onCancel={() => setForking(false)} />}
      {state.error && (
        <p className="form-error" role="alert">
          {state.error}
        </p>
      )}
    </section>
  );
}

function OriginAndForks({ info }: { info: TimelineState["info"] }) {
  if (!info) return null;
  return (
    <>
      {info.origin && (
        <span className="timeline__origin" data-testid="timeline-origin">
          Continued from{" "}
          {info.origin.roomId ? (
            <a href={`/rooms/${info.origin.roomId}?at=${info.origin.seq}`}>
              “{info.origin.title}” at #{info.origin.seq}
            </a>
          ) : (
            `“${info.origin.title}” at #${info.origin.seq}`
          )}
        </span>
      )}
      {info.forks.length > 0 && (
        <details className="timeline__forks" data-testid="timeline-forks">
          <summary>
            {info.forks.length} fork{info.forks.length === 1 ? "" : "s"}
          </summary>
          <ul>
            {info.forks.map((fork) => (
              <li key={fork.id}>
                <a href={`/rooms/${fork.id}`}>{fork.title}</a> <span className="muted">from #{fork.seq}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </>
  );
}

function ForkForm({ at, title: shownTitle, onCancel }: { at: number; title: string; onCancel: () => void }) {
  const { live } = useTimelineContext()!;
  const roomId = useStore(live, (room) => room.room.id);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="timeline__fork"
      data-testid="fork-form"
      onSubmit={async (event) => {
        event.preventDefault();
        const title = new FormData(event.currentTarget).get("title");
        setBusy(true);
        setError(null);
        try {
          const created = await apiRequest<{ room: { id: string } }>(`/api/rooms/${roomId}/forks`, "POST", {
            at,
            ...(typeof title === "string" && title.trim() ? { title: title.trim() } : {}),
          });
          window.location.assign(`/rooms/${created.room.id}`);
        } catch (problem) {
          setBusy(false);
          setError(problem instanceof ApiError ? problem.message : "Could not reach the server; try again.");
        }
      }}
    >
      <p>
        A new room starts with this room as it was after event #{at}: its notes, links, board, findings and agents with their settings.
        Nothing that was under way comes along (runs, questions, dialogues, waiting messages).
      </p>
      <label>
        Title <input name="title" data-testid="fork-title" placeholder={`${shownTitle} (from #${at})`} maxLength={120} />
      </label>
      <button type="submit" className="button button--primary" data-testid="fork-confirm" disabled={busy}>
        {busy ? "Starting…" : "Continue in a new room"}
      </button>
      <button type="button" className="button" onClick={onCancel}>
        Cancel
      </button>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
