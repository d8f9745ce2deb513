import type { AgentDto, StoredEvent, StoredEventType } from "@/lib/protocol";

/**
 * For every stored event type, whether it always belongs to a workflow, whoever wrote it. The
 * compiler refuses a new event type until it is decided here, so none is left untraceable by
 * mistake. An event of another type is traced still when an agent wrote it, or when the feed
 * shows its correlation id to be a workflow's.
 */
const WORKFLOW_EVENT: Record<StoredEventType, boolean> = {
  // A run and what it did, a person's message that starts one, and the workflows agents hold.
  "run.queued": true,
  "run.started": true,
  "run.step": true,
  "run.retrying": true,
  "run.finished": true,
  "command.sent": true,
  "review.started": true,
  "review.ready": true,
  "review.code": true,
  "review.verdict": true,
  "review.closed": true,
  "dialogue.opened": true,
  "dialogue.message": true,
  "dialogue.replied": true,
  "dialogue.closed": true,
  "help.answered": true,
  // A brainstorm is a workflow: its stages, its gate and what people decide there are all of it.
  "brainstorm.started": true,
  "brainstorm.stage": true,
  "brainstorm.submitted": true,
  "brainstorm.ideas_released": true,
  "brainstorm.gate_opened": true,
  "brainstorm.gate_decided": true,
  "brainstorm.completed": true,
  // A question to the others belongs to the run that asked it, a person's answer included.
  "broadcast.asked": true,
  "broadcast.opened": true,
  "broadcast.response": true,
  "broadcast.retrying": true,
  "broadcast.closed": true,
  // The room, the canvas and the board as anyone changes them: part of a workflow when an agent
  // wrote it, or when the feed shows the workflow (a board request the scheduler served for a run).
  "room.created": false,
  "room.updated": false,
  "seat.taken": false,
  "seat.focused": false,
  "command.delivered": false,
  "command.cancelled": false,
  "knowledge.updated": false,
  "knowledge.cleared": false,
  "agent.updated": false,
  "agent.joined": false,
  "agent.token_revoked": false,
  "agent.remote_task": false,
  "admin.action": false,
  "node.created": false,
  "node.updated": false,
  "canvas.tidied": false,
  "node.deleted": false,
  "edge.created": false,
  "edge.updated": false,
  "edge.deleted": false,
  "limit.reached": false,
  "board.posted": false,
  "board.request_updated": false,
};

/** Events that a run writes of itself: their correlation id is a workflow's. */
const RUN_EVENT: ReadonlySet<StoredEventType> = new Set(["run.queued", "run.started", "run.step", "run.retrying", "run.finished"]);

/**
 * The correlation ids the feed shows to be workflows': those of its runs' events. An entry of
 * another kind that carries one (a request the scheduler served for a run) is part of it.
 */
export function workflowIdsIn(feed: readonly StoredEvent[]): Set<string> {
  const ids = new Set<string>();
  for (const event of feed) if (RUN_EVENT.has(event.type)) ids.add(event.correlation_id);
  return ids;
}

/**
 * Whether a feed entry belongs to a workflow, so "trace" can open it: an event of a kind that
 * always does, an agent's, or one whose correlation id the feed shows to be a workflow's. The
 * rest — a person's edit of the canvas, a seat taken, the room renamed — carry a correlation
 * id of their own that no workflow has.
 */
export function isTraceable(event: StoredEvent, agents: readonly AgentDto[], workflowIds: ReadonlySet<string>): boolean {
  return WORKFLOW_EVENT[event.type] || agents.some((agent) => agent.id === event.agent) || workflowIds.has(event.correlation_id);
}
