"use client";

import { useShallow } from "zustand/react/shallow";
import { apiWrite } from "@/components/room/api";
import { useSubmit } from "@/components/ui/use-submit";
import { workflowPanel } from "@/components/workflows/panels";
import { findTemplate } from "@/lib/rooms/templates";
import { useRoom } from "./room-store";
import type { RoomState } from "./room-state";

const selectStart = (state: RoomState) => ({
  roomId: state.room.id,
  template: state.room.template,
  task: state.settings.task,
  seated: state.seat !== null,
  started:
    state.settings.scheduler_enabled ||
    Object.keys(state.runs).length > 0 ||
    Object.keys(state.reviews).length > 0 ||
    state.brainstorm !== null,
  first: state.turnOrder[0] ? state.agents.find((agent) => agent.persona === state.turnOrder[0])?.name : undefined,
});

/** What starting the team does, in the words of its template. */
function whatHappens(template: string, first: string | undefined): string {
  const plan = workflowPanel(template)?.plan;
  if (plan) return plan;
  const summary = findTemplate(template)?.summary ?? "The agents work on it together on this canvas.";
  return first ? `${summary} ${first} goes first, then each takes a turn.` : summary;
}

/**
 * What an empty room says: the task its team will work on, what will happen, and how to join —
 * "Start the team" for someone with a seat, where to take one for a spectator.
 */
export function TeamStart({ canEdit }: { canEdit: boolean }) {
  const { roomId, template, task, seated, started, first } = useRoom(useShallow(selectStart));
  const { busy, error, submit } = useSubmit();
  if (!task) {
    return <>The canvas is empty. {canEdit ? "Add a note, or start an agent." : "Agents and participants will fill it."}</>;
  }
  return (
    <div className="team-start" data-testid="team-start">
      <p>
        <strong>The team's task:</strong> <span data-testid="team-task">{task}</span>
      </p>
      {started ? (
        <p data-testid="team-started">The team is at work; its first notes appear here in a moment.</p>
      ) : (
        <>
          <p data-testid="team-plan">{whatHappens(template, first)}</p>
          {seated ? (
            <form onSubmit={submit(async () => void (await apiWrite(`/api/rooms/${roomId}/start`, "POST")))}>
              <button type="submit" className="button button--primary" data-testid="start-team" disabled={busy}>
                Start the team
              </button>
            </form>
          ) : (
            <p data-testid="team-join-hint">Take a seat (top right) to start the team and join in; until then you can watch.</p>
          )}
          {error && <p className="form-error">{error}</p>}
        </>
      )}
    </div>
  );
}
