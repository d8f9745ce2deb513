import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentNotes, agents } from "@/db/schema";
import { askOthers } from "@/lib/broadcast/ask-others";
import { readEventsAfter } from "@/lib/events/read-events";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import { postBoardEntry } from "@/lib/board/post-entry";
import { enqueueRun } from "@/lib/agents/enqueue-run";
import { initialRoomState } from "@/components/room/room-state";
import { getRoomSnapshot } from "@/lib/rooms/get-room-snapshot";
import { startA2aStandIn } from "@/test/a2a-stand-in";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { createTestRoom, eventually } from "@/test/fixtures";
import { useTestRuntime } from "@/test/test-runtime";
import { modelUnavailableReason, resolveModel } from "./registry";

const context = useTestRuntime();
const db = () => context.database.db;
let streaming: Awaited<ReturnType<typeof startA2aStandIn>>;
let plain: Awaited<ReturnType<typeof startA2aStandIn>>;
let savedEndpoints: string | undefined;

beforeAll(async () => {
  streaming = await startA2aStandIn({ streaming: true });
  plain = await startA2aStandIn({ streaming: false, answer: (text) => `Plain stand-in: ${text.length} characters read` });
  savedEndpoints = process.env.PARLEY_IMPORT_ENDPOINTS;
  // The stand-ins listen on the loopback address, which an agent may reach only when it is listed.
  process.env.PARLEY_IMPORT_ENDPOINTS = `${streaming.base},${plain.base}`;
});
afterAll(async () => {
  await streaming?.close();
  await plain?.close();
  if (savedEndpoints === undefined) delete process.env.PARLEY_IMPORT_ENDPOINTS;
  else process.env.PARLEY_IMPORT_ENDPOINTS = savedEndpoints;
});

/** A Creative canvas room whose Storyteller is the A2A agent at `cardUrl`. */
async function roomWithA2aStoryteller(cardUrl: string) {
  const { roomId } = await createTestRoom(db(), { broadcast: "agents", broadcast_timeout: 30 });
  const storyteller = await agentByPersona(context.database, roomId, "storyteller");
  await db()
    .update(agents)
    .set({ model: `a2a:${cardUrl}` })
    .where(eq(agents.id, storyteller.id));
  return { roomId, storyteller: { ...storyteller, model: `a2a:${cardUrl}` } };
}

const deps = () => ({
  database: context.database,
  bus: context.runtime.bus,
  resolveModel: (spec: string) => resolveModel(spec, { scriptPaceMs: 0 }),
  modelCallPolicy: { retryDelaysMs: [50], timeoutMs: 10_000 },
});

describe("an A2A agent as a teammate", () => {
  it("answers a Parley agent's ask_others through the A2A SDK", async () => {
    const { roomId } = await roomWithA2aStoryteller(plain.cardUrl);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const before = plain.received.length;
    const outcome = await askOthers(deps(), {
      roomId,
      asker: songwriter,
      runId: null,
      correlationId: "ask-a2a",
      question: "What happens in the second verse?",
      targetAgents: ["Storyteller"],
    });
    expect(outcome.status).toBe("complete");
    expect(outcome.responses).toEqual([
      expect.objectContaining({ responder_name: "Storyteller", content: expect.stringMatching(/^Plain stand-in: \d+ characters read$/) }),
    ]);
    expect(plain.received.slice(before)).toEqual([expect.stringContaining("What happens in the second verse?")]);
  });

  it("serves a help request in a run of its own, streaming, and the answer goes back to the asker", async () => {
    const { roomId, storyteller } = await roomWithA2aStoryteller(streaming.cardUrl);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const worker = await startTestWorker(context.database);
    try {
      await writeRoomEvents(db(), roomId, async (tx, emit, at) => {
        const entry = await postBoardEntry(tx, emit, {
          roomId,
          kind: "request",
          content: { targetPersona: "storyteller", ask: "Name the ship in our story", refNodeIds: [], help: true },
          author: { id: songwriter.id, name: songwriter.name, agentId: songwriter.id, runId: null },
          expiryMinutes: 60,
          correlationId: "help-a2a",
          requestStatus: "queued",
          at,
        });
        await enqueueRun(tx, emit, {
          roomId,
          agentId: storyteller.id,
          trigger: "request",
          requestedBy: { id: songwriter.id, name: songwriter.name },
          prompt: `${songwriter.name} asks for your help: Name the ship in our story`,
          correlationId: "help-a2a",
          requestEntryId: entry.id,
          at,
        });
      });
      const note = await eventually(async () => {
        const [found] = await db().select().from(agentNotes).where(eq(agentNotes.agentId, songwriter.id));
        if (!found) throw new Error("No answer yet");
        return found;
      }, 20_000);
      expect(note).toMatchObject({ kind: "help", text: expect.stringContaining("Storyteller answered your help request") });
      expect(note.text).toContain("Stand-in heard:");
      expect(streaming.received.at(-1)).toContain("Name the ship in our story");
      const events = await readEventsAfter(db(), roomId, 0);
      expect(events.find((event) => event.type === "run.finished")).toMatchObject({
        correlation_id: "help-a2a",
        payload: { status: "succeeded" },
      });
      // The remote task's states reached the room, in order, before the run ended, and its card keeps the last.
      const states = events.filter((event) => event.type === "agent.remote_task");
      expect(states.length).toBeGreaterThan(0);
      expect(states.every((event) => event.payload.agentId === storyteller.id && event.correlation_id === "help-a2a")).toBe(true);
      expect(states.at(-1)!.payload.state).toBe("completed");
      expect(states.at(-1)!.seq).toBeLessThan(events.find((event) => event.type === "run.finished")!.seq);
      const state = initialRoomState(await getRoomSnapshot(db(), roomId), null);
      expect(state.remoteTasks[storyteller.id]).toMatchObject({ state: "completed", taskId: states.at(-1)!.payload.taskId });
      // Its reply is its own work on the canvas and the board.
      expect(events.filter((event) => event.type === "node.created").map((event) => event.payload.node)).toEqual([
        expect.objectContaining({ authorId: storyteller.id, text: expect.stringContaining("Stand-in heard:") }),
      ]);
      expect(events.find((event) => event.type === "board.posted" && event.payload.entry.kind === "contribution")).toMatchObject({
        agent_name: "Storyteller",
      });
    } finally {
      await worker.stop();
    }
  });

  it("is bounded when unreachable: the question ends without its answer and the retry shows", async () => {
    const { roomId, storyteller } = await roomWithA2aStoryteller("http://127.0.0.1:9/card");
    process.env.PARLEY_IMPORT_ENDPOINTS = `${process.env.PARLEY_IMPORT_ENDPOINTS},http://127.0.0.1:9/`;
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const outcome = await askOthers(deps(), {
      roomId,
      asker: songwriter,
      runId: null,
      correlationId: "ask-unreachable",
      question: "Anyone there?",
      targetAgents: [storyteller.name],
    });
    expect(outcome.responses).toEqual([]);
    const retries = (await readEventsAfter(db(), roomId, 0)).filter((event) => event.type === "broadcast.retrying");
    expect(retries.length).toBeGreaterThan(0);
  });

  it("is refused on a private address nobody listed, with the reason", () => {
    expect(modelUnavailableReason("a2a:http://10.1.2.3/card")).toContain("list it in PARLEY_IMPORT_ENDPOINTS");
    expect(modelUnavailableReason("a2a:not a url")).toContain("is not an agent card URL");
    expect(modelUnavailableReason("a2a:https://agents.example.com/.well-known/agent-card.json")).toBeNull();
  });
});
