"use client";

import { useState } from "react";
import { useShallow } from "zustand/react/shallow";
import { LIMITS } from "@/lib/protocol";
import { apiWrite } from "@/components/room/api";
import { useRoom } from "@/components/room/room-store";
import type { RoomState } from "@/components/room/room-state";
import { useSubmit } from "@/components/ui/use-submit";
import { useSecondsLeft } from "./countdown";
import { readableInk } from "@/components/ui/readable-color";

const selectQuestion = (state: RoomState) => {
  const human = Object.values(state.broadcasts).filter((broadcast) => broadcast.mode === "human");
  return {
    open: human.find((broadcast) => broadcast.status === "open") ?? null,
    waiting: human.filter((broadcast) => broadcast.status === "waiting_turn").length,
    agents: state.agents,
    seated: state.seat !== null,
    roomId: state.room.id,
  };
};

/**
 * The question an agent is asking the people in the room: who asks, a countdown, and
 * (for participants) an answer box, choices, Send and Skip. A choice only fills the answer in,
 * to be sent with Send (or changed first), so a slip of the finger answers nothing. Spectators see it read-only.
 */
export function HumanQuestion({ onError }: { onError: (message: string) => void }) {
  const { open, waiting, agents, seated, roomId } = useRoom(useShallow(selectQuestion));
  const secondsLeft = useSecondsLeft(open?.deadlineAt ?? null, open?.openedAt ?? null);
  const [answer, setAnswer] = useState("");
  const { busy, submit } = useSubmit();
  if (!open) return null;
  const asker = agents.find((agent) => agent.id === open.agentId);
  const expired = secondsLeft === 0;

  /** Answers with `text`, or skips the question (null); a refusal is the room's to show. */
  const send = (text: string | null) =>
    submit(async () => {
      try {
        if (text === null) await apiWrite(`/api/rooms/${roomId}/broadcasts/${open.id}/skip`, "POST");
        else await apiWrite(`/api/rooms/${roomId}/broadcasts/${open.id}/answer`, "POST", { answer: text });
        setAnswer("");
      } catch (error) {
        onError((error as Error).message);
      }
    });

  return (
    <section className="question-panel" data-testid="human-question" data-broadcast-id={open.id} aria-live="polite">
      <div className="question-panel__head">
        <span className="feed__dot" style={{ background: asker?.color ?? "#7950f2" }} />
        <strong style={{ color: asker && readableInk(asker.color) }}>{open.agentName}</strong> asks the room
        {open.askedAgainOf && <span className="badge">asked again</span>}
        {waiting > 0 && <span className="badge">{waiting} more waiting</span>}
        <span
          className={`question-panel__countdown${secondsLeft !== null && secondsLeft <= 10 ? " question-panel__countdown--low" : ""}`}
          data-testid="question-countdown"
        >
          {expired ? "time is up" : `${secondsLeft}s left`}
        </span>
      </div>
      <div className="question-panel__question" data-testid="question-text">
        {open.question}
      </div>
      {seated ? (
        <form className="question-panel__form" onSubmit={(event) => (answer.trim() ? send(answer.trim())(event) : event.preventDefault())}>
          {open.options.length > 0 && (
            <div className="question-panel__options">
              {open.options.map((option) => (
                <button
                  key={option}
                  type="button"
                  className="button"
                  data-testid="question-option"
                  aria-pressed={answer === option}
                  disabled={busy || expired}
                  onClick={() => setAnswer(option)}
                >
                  {option}
                </button>
              ))}
            </div>
          )}
          <textarea
            data-testid="question-answer"
            placeholder="Type your answer"
            value={answer}
            maxLength={LIMITS.noteText}
            disabled={busy || expired}
            onChange={(event) => setAnswer(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === "Enter" && (event.metaKey || event.ctrlKey) && answer.trim()) void send(answer.trim())(event);
            }}
          />
          <div className="question-panel__actions">
            <button
              type="submit"
              className="button button--primary"
              data-testid="question-send"
              disabled={busy || expired || !answer.trim()}
            >
              Send
            </button>
            <button type="button" className="button" data-testid="question-skip" disabled={busy || expired} onClick={send(null)}>
              Skip
            </button>
          </div>
        </form>
      ) : (
        <p className="muted" data-testid="question-spectator">
          Only participants can answer. Take a seat to join in.
        </p>
      )}
    </section>
  );
}
