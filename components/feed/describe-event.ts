import { formatUsage } from "@/components/agents/agent-status";
import type { AgentDto, BoardEntryDto, LimitName, PayloadOf, StoredEvent, StoredEventOf, StoredEventType } from "@/lib/protocol";
import { type StageKey, stageDefinition } from "@/lib/protocol/brainstorm";

export interface FeedLine {
  /** A short verb phrase after the actor's name: "added a note". */
  text: string;
  /** Quoted content shown under the line, if any. */
  detail?: string;
  /** Canvas nodes the entry refers to; clicking the entry highlights them. */
  nodeIds: string[];
  tone: "canvas" | "people" | "room" | "agent" | "collaboration" | "error";
  /** Moves and other noise are shown compactly. */
  quiet?: boolean;
  /** What an agent said, shown as its message. */
  message?: string;
  /** Duration, tokens and cost of the step or run. */
  meta?: string;
  /** Short labels for the tool calls of a step. */
  chips?: string[];
  /** Colours to show as swatches (themes). */
  palette?: string[];
  /** The entry this one answers, for reactions. */
  inReplyTo?: string;
  /** A broadcast shown as a live thread. */
  broadcastId?: string;
  /** A dialogue between two agents shown as a live thread. */
  dialogueId?: string;
  /** Events that only update something shown elsewhere (a thread) and get no line of their own. */
  hidden?: boolean;
}

export interface DescribeContext {
  agents: AgentDto[];
  nodeText: (nodeId: string) => string | undefined;
  boardEntry?: (entryId: string) => BoardEntryDto | undefined;
  /** Whether a run's text is a turn of a dialogue, which the dialogue's thread shows. */
  saidInDialogue?: (runId: string) => boolean;
}

/** An MCP server's tool (`mcp__<server>__<tool>`) as "<server>: <tool>". */
function mcpToolLabel(name: string): string | undefined {
  const match = name.match(/^mcp__(.+?)__(.+)$/);
  return match ? `${match[1]}: ${match[2]}` : undefined;
}

const TOOL_LABELS: Record<string, string> = {
  create_node: "added a node",
  update_node: "edited a node",
  delete_node: "deleted a node",
  create_edge: "linked nodes",
  delete_edge: "removed a link",
  share_creative_context: "shared context",
  read_shared_context: "read the board",
  request_agent: "asked a teammate",
  request_help: "asked for help",
  post_finding: "posted a finding",
  update_knowledge: "saved knowledge",
  submit_code: "submitted code",
  submit_verdict: "gave a verdict",
  ask_teammate: "asked a teammate",
  reply_in_dialogue: "replied",
};

/** How the feed names the limit that stopped an agent. */
const LIMIT_LABELS: Record<LimitName, string> = {
  room_daily_tokens: "was stopped: the room's daily token budget is spent",
  room_daily_cost: "was stopped: the room's daily cost budget is spent",
  instance_daily_tokens: "was stopped: the server's daily token budget is spent",
  instance_daily_cost: "was stopped: the server's daily cost budget is spent",
  workflow_cost: "was stopped: the workflow reached its cost cap",
  repeated_tool_call: "was stopped for repeating the same tool call",
  repeated_exchange: "was stopped: the agents kept asking each other the same thing",
};

/** How the feed names a budget an agent was stopped short of, because its run or next step would have gone past it. */
const BUDGET_AHEAD_LABELS: Partial<Record<LimitName, string>> = {
  room_daily_tokens: "was stopped: it would go past the room's daily token budget",
  room_daily_cost: "was stopped: it would go past the room's daily cost budget",
  instance_daily_tokens: "was stopped: it would go past the server's daily token budget",
  instance_daily_cost: "was stopped: it would go past the server's daily cost budget",
};

function modelOf(context: DescribeContext, agentId: string): string | undefined {
  return context.agents.find((agent) => agent.id === agentId)?.model;
}

function agentName(context: DescribeContext, agentId: string): string {
  return context.agents.find((agent) => agent.id === agentId)?.name ?? "an agent";
}

function lowerFirst(text: string): string {
  return text ? text[0]!.toLowerCase() + text.slice(1) : text;
}

function personaName(context: DescribeContext, persona: string | null | undefined): string {
  return context.agents.find((agent) => agent.persona === persona)?.name ?? persona ?? "another agent";
}

function entryNodeIds(entry: BoardEntryDto | undefined): string[] {
  if (!entry) return [];
  const content = entry.content as { nodeIds?: unknown; refNodeIds?: unknown };
  const ids = Array.isArray(content.nodeIds) ? content.nodeIds : Array.isArray(content.refNodeIds) ? content.refNodeIds : [];
  return ids.filter((id): id is string => typeof id === "string");
}

function describeBoardEntry(entry: BoardEntryDto, context: DescribeContext): FeedLine {
  const content = entry.content as Record<string, unknown>;
  switch (entry.kind) {
    case "intention":
      return { text: "shared an intention", detail: String(content.plan ?? ""), nodeIds: [], tone: "collaboration" };
    case "contribution":
      return {
        text: "shared a contribution",
        detail: String(content.summary ?? ""),
        nodeIds: entryNodeIds(entry),
        tone: "collaboration",
      };
    case "request": {
      const target = personaName(context, entry.targetPersona);
      if (content.help === true) {
        return { text: `asked ${target} for help`, detail: String(content.ask ?? ""), nodeIds: [], tone: "collaboration" };
      }
      return {
        text: `asked ${target} to ${lowerFirst(String(content.ask ?? "help"))}`,
        nodeIds: entryNodeIds(entry),
        tone: "collaboration",
      };
    }
    case "reaction": {
      const answered = context.boardEntry?.(String(content.toEntryId ?? ""));
      return {
        text: answered ? `reacted to ${answered.agentName}'s ${answered.kind}` : "reacted",
        detail: String(content.response ?? ""),
        nodeIds: entryNodeIds(answered),
        tone: "collaboration",
        inReplyTo: answered
          ? `${answered.agentName}: ${excerpt(String((answered.content as { summary?: string; ask?: string }).summary ?? (answered.content as { ask?: string }).ask ?? ""), 60) ?? answered.kind}`
          : undefined,
      };
    }
    case "theme":
      return {
        text: `set the theme: ${String(content.mood ?? "")}`,
        detail: Array.isArray(content.keywords) ? content.keywords.join(" · ") : undefined,
        palette: Array.isArray(content.palette) ? (content.palette as string[]) : undefined,
        nodeIds: [],
        tone: "collaboration",
      };
    case "finding":
      return {
        text: `posted a ${String(content.severity ?? "medium")}-severity finding`,
        detail: String(content.finding ?? ""),
        nodeIds: entryNodeIds(entry),
        tone: content.severity === "high" ? "error" : "collaboration",
      };
    default:
      return unreachable(entry.kind);
  }
}

/** Makes a `switch` over a closed set exhaustive: adding a member without its case is a type error. */
function unreachable(value: never): never {
  throw new Error(`Unhandled case: ${String(value)}`);
}

function excerpt(text: string | undefined, length = 80): string | undefined {
  if (!text) return undefined;
  const single = text.replace(/\s+/g, " ").trim();
  return single.length > length ? `${single.slice(0, length - 1)}…` : single;
}

/** "stage 3 (Convergent thinking)", or "the gate". */
function stageLabel(stage: StageKey): string {
  const definition = stageDefinition(stage);
  return definition.number === null ? "the gate" : `stage ${definition.number} (${definition.name})`;
}

/** How each stored event reads in the feed: one entry per event type, so none is left undescribed. */
const describers: { [T in StoredEventType]: (event: StoredEventOf<T>, context: DescribeContext) => FeedLine } = {
  "room.created": (event) => ({ text: `opened the room with ${event.payload.agents.length} agents`, nodeIds: [], tone: "room" }),
  "room.updated": (event) => ({
    text: event.payload.title ? `renamed the room to “${event.payload.title}”` : "changed the room's settings",
    nodeIds: [],
    tone: "room",
  }),
  "seat.taken": () => ({ text: "took a seat", nodeIds: [], tone: "people" }),
  "seat.focused": (event, context) => ({
    text: event.payload.agentId
      ? `now talks to ${agentName(context, event.payload.agentId)} by default`
      : "talks to the latest agent by default",
    nodeIds: [],
    tone: "people",
    quiet: true,
  }),
  "command.sent": (event, context) => {
    const { command } = event.payload;
    const how = { next_step: "in its next step", queued_run: "in its queued run", new_run: "now", inbox: "when it reads its messages" }[
      command.delivery
    ];
    return {
      text: `told ${agentName(context, command.agentId)} (${how})`,
      message: command.text,
      nodeIds: [],
      tone: "people",
    };
  },
  "command.delivered": (event) => ({
    text: `read ${event.payload.commandIds.length === 1 ? "a message" : `${event.payload.commandIds.length} messages`} (step ${event.payload.step + 1})`,
    nodeIds: [],
    tone: "people",
    quiet: true,
  }),
  "command.cancelled": (event, context) => ({
    text: `withdrew a message to ${agentName(context, event.payload.agentId)}`,
    nodeIds: [],
    tone: "people",
    quiet: true,
  }),
  "help.answered": (event, context) => {
    const { answered, askerAgentId, text } = event.payload;
    const asker = agentName(context, askerAgentId);
    return answered
      ? { text: `answered ${asker}'s help request`, detail: excerpt(text, 200), nodeIds: [], tone: "collaboration" }
      : { text: `could not answer ${asker}'s help request`, detail: text, nodeIds: [], tone: "error" };
  },
  "knowledge.updated": (event) => {
    const { insight, area, level } = event.payload;
    return {
      text: area ? `grew in ${area} (${level}/100)` : "saved an insight",
      detail: insight ?? undefined,
      nodeIds: [],
      tone: "agent",
      quiet: !insight,
    };
  },
  "brainstorm.started": (event) => ({
    text: "started a brainstorm",
    detail: event.payload.brainstorm.problem,
    nodeIds: [],
    tone: "collaboration",
  }),
  "brainstorm.stage": (event) => {
    const { stage, status, rerun, count, shortfall } = event.payload;
    const name = stageLabel(stage);
    const counted = count !== null && status !== "running" ? ` (${count})` : "";
    const text =
      status === "running"
        ? rerun
          ? `asked ${name} again: it fell short`
          : `started ${name}`
        : status === "skipped"
          ? `skipped ${name}`
          : status === "pending"
            ? `sent the process back from ${name}`
            : `finished ${name}${status === "short" ? " short" : ""}${counted}`;
    return {
      text,
      detail: shortfall ?? undefined,
      nodeIds: [],
      tone: status === "short" ? "error" : "collaboration",
      quiet: status === "running" && !rerun,
    };
  },
  "brainstorm.submitted": (event) => ({ text: `submitted ${event.payload.summary}`, nodeIds: event.payload.nodeIds, tone: "agent" }),
  "brainstorm.ideas_released": (event) => ({
    text: `released all ${event.payload.ideas.length} ideas at once to the next stages`,
    nodeIds: event.payload.ideas.flatMap((idea) => (idea.nodeId ? [idea.nodeId] : [])),
    tone: "collaboration",
  }),
  "brainstorm.gate_opened": (event) => ({
    text:
      event.payload.round === 1
        ? `is waiting for the room to decide on a shortlist of ${event.payload.ranking.length}`
        : `is waiting for the room to decide again (round ${event.payload.round}) on a shortlist of ${event.payload.ranking.length}`,
    detail: event.payload.ranking.map((candidate, index) => `${index + 1}. ${candidate.title} (${candidate.score})`).join(" · "),
    nodeIds: [],
    tone: "people",
  }),
  "brainstorm.gate_decided": (event) => {
    const { action, candidateId, comment } = event.payload.decision;
    const text = {
      approve: "approved the shortlist",
      drop: `dropped ${candidateId} from the shortlist`,
      redirect: "sent the ranking back",
      deepen: `asked for a closer look at ${candidateId}`,
    }[action];
    return { text, detail: comment ?? undefined, nodeIds: [], tone: "people" };
  },
  "brainstorm.completed": (event) => ({
    text: event.payload.outcome === "complete" ? "finished the brainstorm: the deliverable is ready" : "stopped the brainstorm",
    nodeIds: [],
    tone: "collaboration",
  }),
  "review.started": (event) => ({ text: "started a build review", detail: event.payload.review.task, nodeIds: [], tone: "collaboration" }),
  "review.ready": (event) => ({
    text: "read the brief and is ready to write the code",
    detail: event.payload.text || undefined,
    nodeIds: [],
    tone: "collaboration",
  }),
  "review.code": (event) => ({
    text: `submitted version ${event.payload.version} of the code`,
    nodeIds: [event.payload.nodeId],
    tone: "canvas",
  }),
  "review.verdict": (event) => {
    const { verdict, version, issues, openQuestions } = event.payload;
    const detail = [
      ...issues.map((issue) => `[${issue.severity}] ${issue.text}`),
      ...openQuestions.map((question) => `? ${question}`),
    ].join("\n");
    return {
      text: verdict === "approve" ? `approved version ${version}` : `asked for changes to version ${version}`,
      detail: detail || undefined,
      nodeIds: issues.flatMap((issue) => (issue.nodeId ? [issue.nodeId] : [])),
      tone: verdict === "approve" ? "collaboration" : "error",
    };
  },
  "review.closed": (event) => {
    const { outcome, rounds, remainingIssues, reason } = event.payload;
    const text =
      outcome === "approved"
        ? `closed the review: approved after ${rounds} round${rounds === 1 ? "" : "s"}`
        : outcome === "cancelled"
          ? "cancelled the review"
          : "closed the review: not approved";
    return {
      text,
      detail: [reason, ...remainingIssues.map((issue) => `[${issue.severity}] ${issue.text}`)].join("\n"),
      nodeIds: [],
      tone: outcome === "approved" ? "collaboration" : "error",
    };
  },
  "dialogue.opened": (event, context) => ({
    text: `opened a dialogue with ${agentName(context, event.payload.dialogue.addresseeAgentId)}`,
    dialogueId: event.payload.dialogue.id,
    nodeIds: [],
    tone: "collaboration",
  }),
  // Shown in the dialogue's thread.
  "dialogue.message": () => THREAD_UPDATE,
  "dialogue.replied": () => THREAD_UPDATE,
  "dialogue.closed": () => THREAD_UPDATE,
  "knowledge.cleared": (event, context) => ({
    text: `cleared ${agentName(context, event.payload.agentId)}'s knowledge`,
    nodeIds: [],
    tone: "room",
  }),
  "agent.updated": (event) => ({
    text: event.payload.changed.includes("model")
      ? `switched ${event.payload.agent.name} from ${event.payload.previousModel} to ${event.payload.agent.model}${event.payload.changed.includes("systemPrompt") ? " and changed its system prompt" : ""}`
      : `changed ${event.payload.agent.name}'s system prompt`,
    nodeIds: [],
    tone: "room",
  }),
  "agent.joined": (event) => ({
    text: `invited ${event.payload.agent.name}, an outside agent, to join over ${event.payload.protocol.toUpperCase()}`,
    nodeIds: [],
    tone: "room",
  }),
  "agent.token_revoked": (event, context) => ({
    text: `revoked ${agentName(context, event.payload.agentId)}'s access to the room`,
    nodeIds: [],
    tone: "room",
  }),
  "agent.remote_task": (event) => ({
    text: `reported its remote task as ${event.payload.state}`,
    nodeIds: [],
    tone: "room",
  }),
  "admin.action": (event) => ({ text: lowerFirst(event.payload.summary), nodeIds: [], tone: "room" }),
  "node.created": (event) => {
    const node = event.payload.node;
    const what = node.kind === "note" ? "a note" : `a ${node.kind}`;
    return { text: `added ${what}`, detail: excerpt(node.text), nodeIds: [node.id], tone: "canvas" };
  },
  "node.updated": (event, context) => {
    const { changes, nodeId } = event.payload;
    // A build review's new version of its code: "submitted version N of the code", just before, says it.
    if (changes.text !== undefined && changes.kind === "code") return { ...VERSION_SHOWN, nodeIds: [nodeId] };
    if (changes.text !== undefined) {
      return { text: "edited a note", detail: excerpt(changes.text), nodeIds: [nodeId], tone: "canvas" };
    }
    if (changes.x !== undefined || changes.y !== undefined) {
      return { text: "moved a note", detail: excerpt(context.nodeText(nodeId), 40), nodeIds: [nodeId], tone: "canvas", quiet: true };
    }
    return { text: "restyled a note", nodeIds: [nodeId], tone: "canvas", quiet: true };
  },
  "canvas.tidied": (event) => ({
    text: `tidied the canvas (${event.payload.positions.length} note${event.payload.positions.length === 1 ? "" : "s"} laid out afresh)`,
    nodeIds: [],
    tone: "canvas",
  }),
  "node.deleted": () => ({ text: "deleted a note", nodeIds: [], tone: "canvas" }),
  "edge.created": (event, context) => {
    const edge = event.payload.edge;
    const from = excerpt(context.nodeText(edge.sourceId), 30) ?? "a note";
    const to = excerpt(context.nodeText(edge.targetId), 30) ?? "a note";
    return {
      text: edge.label ? `linked two notes: “${edge.label}”` : "linked two notes",
      detail: `${from} → ${to}`,
      nodeIds: [edge.sourceId, edge.targetId],
      tone: "canvas",
    };
  },
  "edge.updated": (event) => ({ text: `relabelled a link “${event.payload.label}”`, nodeIds: [], tone: "canvas", quiet: true }),
  "edge.deleted": () => ({ text: "removed a link", nodeIds: [], tone: "canvas", quiet: true }),
  "run.queued": (event, context) => {
    const run = event.payload.run;
    const agent = context.agents.find((candidate) => candidate.id === run.agentId);
    // A requested run, or a dialogue's turn, is introduced by what asked for it.
    if (run.trigger === "request" || run.trigger === "dialogue") {
      return { text: `queued ${agent?.name ?? "an agent"}`, nodeIds: run.selectedNodeIds, tone: "agent", quiet: true };
    }
    return {
      text: `started ${agent?.name ?? "an agent"}`,
      detail: excerpt(run.prompt, 120),
      nodeIds: run.selectedNodeIds,
      tone: "agent",
    };
  },
  "run.started": (event) => ({
    text: event.payload.attempt > 1 ? `resumed work (attempt ${event.payload.attempt})` : "started working",
    nodeIds: [],
    tone: "agent",
    quiet: true,
  }),
  "run.step": (event, context) => {
    const { toolCalls, toolResults, text } = event.payload;
    const created = toolResults
      .filter((result) => result.name === "create_node")
      .map((result) => (result.output as { node?: { id?: string } } | undefined)?.node?.id)
      .filter((id): id is string => typeof id === "string");
    const failed = toolResults.filter((result) => result.error || (result.output as { ok?: boolean } | undefined)?.ok === false).length;
    const counts = new Map<string, number>();
    for (const call of toolCalls) counts.set(call.name, (counts.get(call.name) ?? 0) + 1);
    const chips = [...counts].map(([name, count]) => `${TOOL_LABELS[name] ?? mcpToolLabel(name) ?? name}${count > 1 ? ` ×${count}` : ""}`);
    if (failed) chips.push(`${failed} tool error${failed > 1 ? "s" : ""}`);
    // A dialogue's turn is shown once, in the dialogue's thread with its figures.
    const inThread = !!text && (context.saidInDialogue?.(event.payload.runId) ?? false);
    const said = inThread ? "" : text;
    return {
      text: said ? "" : "worked",
      message: said || undefined,
      chips,
      meta: `step ${event.payload.step + 1} · ${formatUsage(event.payload, { model: modelOf(context, event.payload.agentId) })}`,
      nodeIds: created,
      tone: failed ? "error" : "agent",
      quiet: !said && chips.length === 0,
      hidden: inThread && chips.length === 0 && !failed,
    };
  },
  "run.retrying": (event) => describeRetry(event.payload, "will try again"),
  "run.finished": (event, context) => {
    const { status, error, steps, attempts } = event.payload;
    const retried = attempts > 1 ? ` · ${attempts} attempts` : "";
    const meta = `${steps} step${steps === 1 ? "" : "s"}${retried} · ${formatUsage(event.payload, { model: modelOf(context, event.payload.agentId) })}`;
    if (status === "failed") return { text: "failed", detail: error?.error_message, meta, nodeIds: [], tone: "error" };
    if (status === "cancelled") return { text: "was stopped", detail: error?.error_message, meta, nodeIds: [], tone: "agent" };
    return { text: "finished", meta, nodeIds: [], tone: "agent", quiet: true };
  },
  "limit.reached": (event, context) => {
    const label = (event.payload.expected !== undefined && BUDGET_AHEAD_LABELS[event.payload.limit]) || LIMIT_LABELS[event.payload.limit];
    // No run: a person's start that a budget refused, told as theirs.
    const refused = event.payload.runId === null ? context.agents.find((agent) => agent.id === event.payload.agentId) : undefined;
    return {
      text: refused ? `could not start ${refused.name}: ${label.replace(/^was stopped: /, "")}` : label,
      detail: event.payload.message,
      nodeIds: [],
      tone: "error",
    };
  },
  "board.posted": (event, context) => describeBoardEntry(event.payload.entry, context),
  "board.request_updated": (event) => ({
    text: `marked a request ${event.payload.status.replace("_", " ")}`,
    nodeIds: [],
    tone: "collaboration",
    quiet: true,
  }),
  "broadcast.asked": (event) => ({
    text: event.payload.broadcast.askedAgainOf
      ? `put ${event.payload.broadcast.agentName}'s question to the room again`
      : event.payload.broadcast.mode === "human"
        ? "asked the people in the room"
        : "asked the other agents",
    broadcastId: event.payload.broadcast.id,
    nodeIds: [],
    tone: "collaboration",
  }),
  // Shown in the question's thread, not as lines of their own.
  "broadcast.opened": () => THREAD_UPDATE,
  "broadcast.response": () => THREAD_UPDATE,
  "broadcast.closed": () => THREAD_UPDATE,
  "broadcast.retrying": (event) => describeRetry(event.payload, "will try again to answer the question"),
};

/** A model call retried after a passing failure: when, which retry of how many, and why. */
function describeRetry(retry: PayloadOf<"run.retrying" | "broadcast.retrying">, what: string): FeedLine {
  const seconds = (retry.delayMs / 1000).toFixed(retry.delayMs < 10_000 ? 1 : 0);
  return {
    text: `${what} in ${seconds} s (retry ${retry.retry} of ${retry.of})`,
    detail: retry.error.error_message,
    nodeIds: [],
    tone: "error",
  };
}

const VERSION_SHOWN: FeedLine = { text: "", nodeIds: [], tone: "canvas", quiet: true, hidden: true };
const THREAD_UPDATE: FeedLine = { text: "", nodeIds: [], tone: "collaboration", quiet: true, hidden: true };

/** Turns a stored event into one readable line of the activity feed. */
export function describeEvent(event: StoredEvent, context: DescribeContext): FeedLine {
  const describe = describers[event.type] as (event: StoredEvent, context: DescribeContext) => FeedLine;
  return describe(event, context);
}
