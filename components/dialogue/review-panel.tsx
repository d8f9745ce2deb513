"use client";

import { useState } from "react";
import { apiRequest } from "@/components/room/api";
import { useRoom } from "@/components/room/room-store";
import { useSubmit } from "@/components/ui/use-submit";

const OUTCOME = { approved: "Approved", not_approved: "Not approved", cancelled: "Cancelled" } as const;

/**
 * In a Build review room (`components/workflows/panels.tsx`): the task box for participants, and where the latest review stands
 * (round, version, verdict, outcome) for everyone.
 */
export function ReviewPanel() {
  const roomId = useRoom((state) => state.room.id);
  const seated = useRoom((state) => state.seat !== null);
  const reviews = useRoom((state) => state.reviews);
  const [task, setTask] = useState("");
  const { busy, error, submit } = useSubmit();
  const latest = Object.values(reviews).at(-1);
  const running = latest && !latest.closed;
  return (
    <div className="review-panel" data-testid="review-panel">
      {latest && (
        <div data-testid="review-status">
          <strong>{latest.task}</strong>
          <div className="review-panel__status">
            {latest.closed ? (
              <span className={`review-panel__outcome--${latest.closed.outcome}`}>
                {OUTCOME[latest.closed.outcome]} · {latest.closed.rounds} round{latest.closed.rounds === 1 ? "" : "s"}
              </span>
            ) : (
              <>
                Round {latest.round} of {latest.maxRounds} · code v{latest.version}
                {latest.verdict && ` · last verdict: ${latest.verdict.verdict === "approve" ? "approve" : "changes"}`}
              </>
            )}
          </div>
        </div>
      )}
      {seated && !running && (
        <form
          onSubmit={submit(async () => {
            await apiRequest(`/api/rooms/${roomId}/build-reviews`, "POST", { task }, { idempotencyKey: crypto.randomUUID() });
            setTask("");
          })}
        >
          <label htmlFor="review-task">{latest ? "Another task for the team" : "A small programming task for the team"}</label>
          <textarea
            id="review-task"
            data-testid="review-task"
            placeholder="Write a function that counts the words in a sentence"
            value={task}
            maxLength={1000}
            onChange={(event) => setTask(event.target.value)}
          />
          <button type="submit" className="button button--primary" disabled={busy || task.trim().length < 3} data-testid="review-start">
            Brief, code, review
          </button>
          {error && <div className="command-bar__status command-bar__status--error">{error}</div>}
        </form>
      )}
    </div>
  );
}
