import type { AgentDto, StoredEvent } from "@/lib/protocol";
import type { BrainstormDto } from "@/lib/protocol/brainstorm";

const TITLE_TEXT = 80;

function clip(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > TITLE_TEXT ? `${line.slice(0, TITLE_TEXT - 1)}…` : line;
}

/**
 * What a person calls a workflow: "Build review: Word counter", "Brainstorm: How might we…",
 * or "Songwriter: Write a verse about rain" for an agent's own run; its raw id only names it in
 * the export. Reads what the page already knows: the room's brainstorm, the feed's events of the
 * workflow and, once loaded, the run that started it.
 */
export function workflowTitle(
  correlationId: string,
  known: {
    feed: readonly StoredEvent[];
    brainstorm: BrainstormDto | null;
    agents: readonly Pick<AgentDto, "id" | "name">[];
    startedBy?: { agentId: string; prompt: string } | null;
  },
): string {
  if (known.brainstorm?.correlationId === correlationId) return `Brainstorm: ${clip(known.brainstorm.problem)}`;
  const started = known.feed.find((event) => event.correlation_id === correlationId && event.type === "review.started");
  if (started?.type === "review.started") return `Build review: ${clip(started.payload.review.task)}`;
  const scope = correlationId.split("_")[0] ?? "";
  if (scope.startsWith("review-")) return "Build review";
  if (scope.startsWith("brainstorm-")) return "Brainstorm";
  if (known.startedBy) {
    const agent = known.agents.find((candidate) => candidate.id === known.startedBy!.agentId);
    const prompt = clip(known.startedBy.prompt);
    return agent ? `${agent.name}: ${prompt}` : prompt || "Workflow";
  }
  return "Workflow";
}

/** Why a workflow was tried more often than it has runs: each retry after a passing failure counts. */
export function attemptsExplained(runs: number, attempts: number): string {
  const retries = attempts - runs;
  const base = `${runs} run${runs === 1 ? "" : "s"}`;
  if (retries <= 0) return `${attempts} attempt${attempts === 1 ? "" : "s"}: one per run, none tried again`;
  return `${attempts} attempts: ${base}, and ${retries} model call${retries === 1 ? "" : "s"} tried again after a passing failure`;
}
