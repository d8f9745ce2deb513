import { type StageKey, type StageStateDto, stageDefinition } from "@/lib/protocol/brainstorm";

/** "1m 05s", "12s", "2h 03m": how long something has taken, for the stage chips and the gate. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}

/** How long a stage has run: until now while it runs, until it ended once it has; null before it starts. */
export function stageElapsed(state: StageStateDto, now: number): number | null {
  if (!state.startedAt) return null;
  const end = state.endedAt && state.status !== "running" && state.status !== "awaiting" ? Date.parse(state.endedAt) : now;
  return end - Date.parse(state.startedAt);
}

/**
 * What a stage's chip counts, against what the stage must hold: "23 ideas of 20–60", "5 of 6
 * candidates checked" — out of the candidates the stage's pass covers ("1 of 1" for a deepened
 * one), or still in play when it scores them.
 */
export function stageCount(stage: StageKey, state: StageStateDto): string | null {
  const expect = stageDefinition(stage).expect;
  if (!expect || state.count === null) return null;
  if (expect.everyCandidate) return `${state.count}${state.total != null ? ` of ${state.total}` : ""} ${expect.unit}`;
  const range = expect.max !== undefined ? `${expect.min}–${expect.max}` : `at least ${expect.min}`;
  return `${state.count} ${expect.unit} of ${range}`;
}

/** How a status reads on a chip. */
export const STATUS_LABEL: Record<StageStateDto["status"], string> = {
  pending: "pending",
  running: "running",
  awaiting: "awaiting",
  done: "done",
  short: "short",
  skipped: "skipped",
};
