// Random room histories for property tests and benchmarks: a list of actions (people editing the
// canvas, agents running, posting on the board, asking questions, talking in dialogues, admins
// changing agents and settings) turned into the stored events a room's log would hold, numbered
// 1, 2, 3… from the room's creation, every one parsed by the catalogue's schema.
import fc from "fast-check";
import { DEFAULT_ROOM_SETTINGS } from "@/lib/rooms/room-settings";
import type { RoomState } from "@/components/room/room-state";
import { replayedPart } from "@/components/timeline/view-store";
import type { AgentDto, PayloadOf, StoredEvent, StoredEventType } from "@/lib/protocol";
import { agentDto, boardEntryDto, broadcastDto, dialogueDto, edgeDto, nodeDto, runDto, storedEvent } from "./builders";

const ACTIONS = [
  "note",
  "agent-note",
  "edit",
  "move",
  "delete",
  "link",
  "relabel",
  "unlink",
  "tidy",
  "board",
  "finding",
  "request",
  "run",
  "question",
  "dialogue",
  "command",
  "agent",
  "settings",
  "knowledge",
] as const;

export interface HistoryAction {
  kind: (typeof ACTIONS)[number];
  a: number;
  b: number;
  text: string;
  x: number;
  y: number;
  /** Seconds since the event before: a long pause makes a quiet stretch. */
  pause: number;
}

/** One action of a room's history, as fast-check draws it. */
export const historyAction: fc.Arbitrary<HistoryAction> = fc.record({
  kind: fc.constantFrom(...ACTIONS),
  a: fc.nat(1000),
  b: fc.nat(1000),
  text: fc.string({ maxLength: 40 }),
  x: fc.integer({ min: -2000, max: 2000 }),
  y: fc.integer({ min: -2000, max: 2000 }),
  pause: fc.oneof(fc.nat(5), fc.constant(600)),
});

const AGENTS: AgentDto[] = [
  agentDto({ id: "a-songwriter", persona: "songwriter", name: "Songwriter", position: 0 }),
  agentDto({
    id: "a-painter",
    persona: "scene-painter",
    name: "Scene Painter",
    color: "#1c7ed6",
    model: "script:scene-painter",
    position: 1,
  }),
  agentDto({ id: "a-weaver", persona: "idea-weaver", name: "Idea Weaver", color: "#f59f00", model: "script:idea-weaver", position: 2 }),
];

const PERSON = { agent: "human:seat-1", agent_name: "Ada" };

/** Links are labelled as people and agents label them: a word or two. */
const LABELS = ["echoes", "leads to", "illustrates", "answers", "", "contrasts with", "builds on"];

/**
 * Where a note goes: a cell of its own on a grid, moved a little within it, as the server places
 * agents' work at free spots and people spread their notes out (notes piled on each other are
 * no room anyone works in).
 */
function cell(index: number, action: Pick<HistoryAction, "x" | "y">): { x: number; y: number } {
  return { x: (index % 24) * 340 + (action.x % 40), y: Math.floor(index / 24) * 260 + (action.y % 40) };
}

/**
 * The events of a room (id `roomId`) that went through `actions`, in order: its creation first,
 * then each action as one or more events. Actions that need something the room does not have yet
 * (editing a note in an empty canvas) add it instead.
 */
export function roomHistory(actions: HistoryAction[], roomId = "r", start = Date.parse("2026-11-22T10:00:00.000Z")): StoredEvent[] {
  const events: StoredEvent[] = [];
  let time = start;
  const nodes: string[] = [];
  const edges: string[] = [];
  const requests: string[] = [];
  const versions = new Map<string, number>();
  let counter = 0;
  const id = (prefix: string) => `${prefix}-${++counter}`;
  const at = () => new Date(time).toISOString();
  const emit = <T extends StoredEventType>(type: T, payload: PayloadOf<T>, who: { agent: string; agent_name: string } = PERSON) => {
    const seq = events.length + 1;
    events.push(
      storedEvent(type, payload, { id: `${roomId}-e${seq}`, room_id: roomId, seq, timestamp: at(), correlation_id: `c-${type}`, ...who }),
    );
  };
  const agentOf = (index: number) => AGENTS[index % AGENTS.length]!;
  const asAgent = (agent: AgentDto) => ({ agent: agent.id, agent_name: agent.name });
  const addNote = (action: HistoryAction, agent: AgentDto | null) => {
    const nodeId = id("n");
    nodes.push(nodeId);
    versions.set(nodeId, 1);
    const author = agent
      ? { authorKind: "agent" as const, authorId: agent.id, authorName: agent.name }
      : { authorKind: "human" as const, authorId: PERSON.agent, authorName: PERSON.agent_name };
    emit(
      "node.created",
      {
        node: nodeDto({
          id: nodeId,
          text: action.text,
          ...cell(counter, action),
          kind: agent ? "lyric" : "note",
          ...author,
          createdAt: at(),
          updatedAt: at(),
        }),
      },
      agent ? asAgent(agent) : PERSON,
    );
  };
  const bump = (nodeId: string) => {
    const version = (versions.get(nodeId) ?? 1) + 1;
    versions.set(nodeId, version);
    return version;
  };

  emit(
    "room.created",
    { title: "A history", template: "creative-canvas", agents: AGENTS, settings: { ...DEFAULT_ROOM_SETTINGS } },
    {
      agent: "system",
      agent_name: "Parley",
    },
  );
  for (const action of actions) {
    time += action.pause * 1000 + 1;
    const agent = agentOf(action.b);
    const node = nodes.length ? nodes[action.a % nodes.length]! : null;
    switch (action.kind) {
      case "note":
        addNote(action, null);
        break;
      case "agent-note":
        addNote(action, agent);
        break;
      case "edit":
        if (node) emit("node.updated", { nodeId: node, changes: { text: action.text }, version: bump(node), updatedAt: at() });
        else addNote(action, null);
        break;
      case "move":
        if (node) emit("node.updated", { nodeId: node, changes: cell(counter + 1, action), version: bump(node), updatedAt: at() });
        else addNote(action, null);
        break;
      case "delete": {
        if (!node) break;
        nodes.splice(nodes.indexOf(node), 1);
        emit("node.deleted", { nodeId: node, edgeIds: [] });
        break;
      }
      case "link": {
        // Work is linked to work near it: one of the next few notes.
        const target = nodes.length > 1 ? nodes[(nodes.indexOf(node ?? "") + 1 + (action.b % 3)) % nodes.length]! : null;
        if (!node || !target || target === node) break;
        const edgeId = id("e");
        edges.push(edgeId);
        emit("edge.created", {
          edge: edgeDto({ id: edgeId, sourceId: node, targetId: target, label: action.text.slice(0, 80), createdAt: at() }),
        });
        break;
      }
      case "relabel":
        if (edges.length) emit("edge.updated", { edgeId: edges[action.a % edges.length]!, label: LABELS[action.b % LABELS.length]! });
        break;
      case "unlink":
        if (edges.length) emit("edge.deleted", { edgeId: edges.splice(action.a % edges.length, 1)[0]! });
        break;
      case "tidy":
        if (nodes.length) {
          emit("canvas.tidied", {
            positions: nodes.slice(0, 5).map((nodeId, index) => ({ nodeId, ...cell(index, action), version: bump(nodeId) })),
            updatedAt: at(),
          });
        }
        break;
      case "board":
        emit(
          "board.posted",
          {
            entry: boardEntryDto({
              id: id("b"),
              agentId: agent.id,
              agentName: agent.name,
              kind: "contribution",
              content: { summary: action.text || "a verse", nodeIds: node ? [node] : [] },
              expiresAt: new Date(time + 3_600_000).toISOString(),
              createdAt: at(),
            }),
          },
          asAgent(agent),
        );
        break;
      case "finding":
        emit(
          "board.posted",
          {
            entry: boardEntryDto({
              id: id("f"),
              agentId: agent.id,
              agentName: agent.name,
              kind: "finding",
              content: { finding: action.text || "The verses disagree", severity: "medium", nodeIds: [] },
              expiresAt: null,
              createdAt: at(),
            }),
          },
          asAgent(agent),
        );
        break;
      case "request": {
        if (requests.length && action.a % 2 === 0) {
          emit("board.request_updated", { entryId: requests[action.b % requests.length]!, status: "queued", runId: null }, asAgent(agent));
          break;
        }
        const entryId = id("q");
        requests.push(entryId);
        emit(
          "board.posted",
          {
            entry: boardEntryDto({
              id: entryId,
              agentId: agent.id,
              agentName: agent.name,
              kind: "request",
              content: { targetPersona: "songwriter", ask: action.text || "a chorus", refNodeIds: [] },
              targetPersona: "songwriter",
              requestStatus: "open",
              expiresAt: new Date(time + 3_600_000).toISOString(),
              createdAt: at(),
            }),
          },
          asAgent(agent),
        );
        break;
      }
      case "run": {
        const runId = id("run");
        emit(
          "run.queued",
          { run: runDto({ id: runId, agentId: agent.id, correlationId: runId, createdAt: at() }) },
          { agent: "scheduler", agent_name: "Scheduler" },
        );
        emit("run.started", { runId, agentId: agent.id, attempt: 1, startedAt: at() }, asAgent(agent));
        const usage = { durationMs: 900, inputTokens: 100 + Math.abs(action.x), outputTokens: 50, costUsd: 0 };
        emit(
          "run.step",
          { runId, agentId: agent.id, step: 0, text: action.text, toolCalls: [], toolResults: [], ...usage },
          asAgent(agent),
        );
        if (action.a % 3 !== 0) {
          emit(
            "run.finished",
            { runId, agentId: agent.id, status: action.a % 5 === 0 ? "failed" : "succeeded", steps: 1, attempts: 1, error: null, ...usage },
            asAgent(agent),
          );
        }
        break;
      }
      case "question": {
        const broadcastId = id("ask");
        emit(
          "broadcast.asked",
          {
            broadcast: broadcastDto({
              id: broadcastId,
              agentId: agent.id,
              agentName: agent.name,
              question: action.text || "?",
              createdAt: at(),
            }),
          },
          asAgent(agent),
        );
        emit("broadcast.opened", { broadcastId, deadlineAt: new Date(time + 60_000).toISOString(), openedAt: at() });
        if (action.a % 2 === 0) {
          emit("broadcast.closed", { broadcastId, status: "timeout", responses: 0, durationMs: 60_000, closedAt: at() });
        }
        break;
      }
      case "dialogue": {
        const dialogueId = id("d");
        const other = agentOf(action.b + 1);
        emit(
          "dialogue.opened",
          { dialogue: dialogueDto({ id: dialogueId, askerAgentId: agent.id, addresseeAgentId: other.id, openedAt: at() }) },
          asAgent(agent),
        );
        emit(
          "dialogue.message",
          {
            dialogueId,
            round: 1,
            fromAgentId: other.id,
            toAgentId: agent.id,
            text: action.text,
            runId: "r-d",
            durationMs: 10,
            inputTokens: 1,
            outputTokens: 1,
            costUsd: 0,
            costKnown: true,
          },
          asAgent(other),
        );
        if (action.a % 2 === 1) {
          emit(
            "dialogue.closed",
            {
              dialogueId,
              outcome: "resolved",
              rounds: 1,
              remaining: null,
              durationMs: 10,
              inputTokens: 1,
              outputTokens: 1,
              costUsd: 0,
              costKnown: true,
            },
            asAgent(agent),
          );
        }
        break;
      }
      case "command": {
        const commandId = id("cmd");
        emit("command.sent", {
          command: {
            id: commandId,
            agentId: agent.id,
            senderId: PERSON.agent,
            senderName: PERSON.agent_name,
            text: action.text,
            delivery: "new_run",
            runId: null,
            createdAt: at(),
          },
        });
        if (action.a % 2 === 0)
          emit("command.delivered", { commandIds: [commandId], agentId: agent.id, runId: "run-x", step: 0 }, asAgent(agent));
        break;
      }
      case "agent":
        emit(
          "agent.updated",
          {
            agent: { ...agent, model: `script:${action.a % 2 ? agent.persona : "generalist"}` },
            changed: ["model"],
            previousModel: agent.model,
          },
          { agent: "admin", agent_name: "Admin" },
        );
        break;
      case "settings":
        emit(
          "room.updated",
          {
            ...(action.a % 2 ? { title: `Room ${action.a}` } : {}),
            settings: { ...DEFAULT_ROOM_SETTINGS, max_steps: 1 + (action.b % 20) },
          },
          { agent: "admin", agent_name: "Admin" },
        );
        break;
      case "knowledge":
        emit(
          "knowledge.updated",
          { agentId: agent.id, identity: `creative-canvas/${agent.persona}`, insight: action.text || null, area: null, level: null },
          asAgent(agent),
        );
        break;
    }
  }
  return events;
}

/** A history of about `count` events, the same for the same seed: for benchmarks. */
export function synthesizeRoomHistory(count: number, seed = 42, roomId = "bench-room"): StoredEvent[] {
  const actions = fc.sample(historyAction, { seed, numRuns: count });
  let events = roomHistory(actions, roomId);
  while (events.length < count) {
    actions.push(...fc.sample(historyAction, { seed: seed + actions.length, numRuns: count - events.length + 10 }));
    events = roomHistory(actions, roomId);
  }
  return events.slice(0, count);
}

/**
 * What a replay must reproduce of a room's state: the part its log decides (`replayedPart`), the
 * room's summary without the figures a page's first snapshot stamps on it (its last event and
 * activity then), which no event changes.
 */
export function comparable(state: RoomState) {
  const { room, ...rest } = replayedPart(state);
  return { ...rest, room: { id: room.id, title: room.title, template: room.template } };
}
