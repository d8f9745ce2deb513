import { priceFor } from "@/lib/models/pricing";
import type { AgentDto, BroadcastDto, BroadcastResponseDto, RunDto } from "@/lib/protocol";
import type { RemoteTaskDto, TypingState } from "@/components/room/room-state";

type AgentStatusKind = "idle" | "queued" | "running" | "typing" | "asking" | "answering" | "unavailable";

export interface AgentStatus {
  kind: AgentStatusKind;
  label: string;
  /** The run the status is about (running or queued). */
  run: RunDto | null;
  /** For queued runs: 1 is next in the room's queue. */
  queuePosition: number | null;
}

/** An outside agent counts as working for this long after its last call to Parley. */
export const EXTERNAL_QUIET_MS = 60_000;

/** Whether an agent comes from another system (its own client thinks; Parley never runs it). */
function isOutsideAgent(agent: Pick<AgentDto, "model">): boolean {
  return agent.model.startsWith("external:");
}

/**
 * An A2A teammate's status with its remote task's state: the current call's while it runs
 * ("running · step 1 · remote task working"), the last one's after ("idle · last remote task completed").
 */
export function withRemoteTask(status: AgentStatus, task: Pick<RemoteTaskDto, "state"> | undefined): AgentStatus {
  if (!task) return status;
  const active = status.kind === "running" || status.kind === "typing" || status.kind === "asking";
  return { ...status, label: `${status.label} · ${active ? "remote task" : "last remote task"} ${task.state}` };
}

/** Typing stops counting this long after the last streamed text. */
const TYPING_WINDOW_MS = 1500;

/** What an agent is doing now, from the room's runs and the text it is streaming. */
export function agentStatus(
  agent: AgentDto,
  runs: Record<string, RunDto>,
  typing: Record<string, TypingState>,
  now: number,
  broadcasts: Record<string, BroadcastDto> = {},
  answers: Record<string, BroadcastResponseDto[]> = {},
  /** When the agent, if it is an outside one, last called Parley (this page's clock). */
  externalActiveAt?: number,
): AgentStatus {
  if (isOutsideAgent(agent)) {
    const asking = Object.values(broadcasts).some(
      (broadcast) => broadcast.agentId === agent.id && ["pending", "waiting_turn", "open"].includes(broadcast.status),
    );
    if (asking) return { kind: "asking", label: "waiting on answers", run: null, queuePosition: null };
    const working = externalActiveAt !== undefined && now - externalActiveAt < EXTERNAL_QUIET_MS;
    return working
      ? { kind: "running", label: "working", run: null, queuePosition: null }
      : { kind: "idle", label: "idle", run: null, queuePosition: null };
  }
  const all = Object.values(runs);
  const running = all.find((run) => run.agentId === agent.id && run.status === "running");
  const asking = Object.values(broadcasts).find(
    (broadcast) => broadcast.agentId === agent.id && ["pending", "waiting_turn", "open"].includes(broadcast.status),
  );
  if (running && asking) {
    const label =
      asking.mode === "human" ? (asking.status === "open" ? "asking the room" : "waiting to ask the room") : "waiting on answers";
    return { kind: "asking", label, run: running, queuePosition: null };
  }
  if (running) {
    const typed = typing[agent.id];
    const isTyping = typed && typed.runId === running.id && now - typed.at < TYPING_WINDOW_MS;
    return {
      kind: isTyping ? "typing" : "running",
      label: isTyping ? "typing" : `running · step ${running.steps + 1}`,
      run: running,
      queuePosition: null,
    };
  }
  const queue = all.filter((run) => run.status === "queued").sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const queued = queue.find((run) => run.agentId === agent.id);
  if (queued) {
    const position = queue.indexOf(queued) + 1;
    return { kind: "queued", label: `queued · #${position}`, run: queued, queuePosition: position };
  }
  if (agent.unavailableReason) return { kind: "unavailable", label: "cannot run", run: null, queuePosition: null };
  // Not working itself, but its shadow is answering a teammate's question.
  const answering = Object.values(broadcasts).find(
    (broadcast) =>
      broadcast.mode === "agents" &&
      broadcast.status === "pending" &&
      broadcast.agentId !== agent.id &&
      broadcast.targetAgentIds.includes(agent.id) &&
      !(answers[broadcast.id] ?? []).some((answer) => answer.responderId === agent.id),
  );
  if (answering) return { kind: "answering", label: `answering ${answering.agentName}'s question`, run: null, queuePosition: null };
  return { kind: "idle", label: "idle", run: null, queuePosition: null };
}

/**
 * What a cost is counted at: the model that spent it, or whether every part of it had a known
 * price (a workflow's total, a dialogue's turn).
 */
export type CostBasis = { model: string | undefined } | { costKnown: boolean };

/**
 * A cost as the page shows it: "$0.0123", or "cost unknown" when a model without a known price
 * spent it (such a model reports 0, which is not what it cost), or both when only part is known.
 */
export function formatCost(costUsd: number, basis: CostBasis): string {
  const known = "costKnown" in basis ? basis.costKnown : basis.model !== undefined && priceFor(basis.model) !== null;
  if (known) return `$${costUsd.toFixed(4)}`;
  return costUsd > 0 ? `$${costUsd.toFixed(4)} + cost unknown` : "cost unknown";
}

/** Duration, tokens and cost as the page shows them; the cost as `formatCost` words it. */
export function formatUsage(
  figures: { durationMs?: number; inputTokens: number; outputTokens: number; costUsd: number },
  basis: CostBasis,
) {
  const parts: string[] = [];
  if (figures.durationMs !== undefined) parts.push(`${(figures.durationMs / 1000).toFixed(1)}s`);
  parts.push(`${(figures.inputTokens + figures.outputTokens).toLocaleString("en-US")} tok`);
  parts.push(formatCost(figures.costUsd, basis));
  return parts.join(" · ");
}
