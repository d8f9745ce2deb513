import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, boardEntries, broadcasts, canvasNodes, dialogues, runs } from "@/db/schema";
import { enqueueRun } from "@/lib/agents/enqueue-run";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { readEventsAfter } from "@/lib/events/read-events";
import { type EventDraft, writeRoomEvents } from "@/lib/events/write-room-events";
import type { RoomSettingsPatch } from "@/lib/rooms/room-settings";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { boardEntryDto, broadcastDto, dialogueDto } from "@/test/builders";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { mockResolver, scriptedSteps, setAgentModel, textStep, toolStep } from "@/test/mock-models";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

async function settled(roomId: string, count: number) {
  return eventually(async () => {
    const all = await database.db.select().from(runs).where(eq(runs.roomId, roomId));
    expect(all).toHaveLength(count);
    expect(all.every((run) => !["queued", "running"].includes(run.status))).toBe(true);
    return all;
  }, 20_000);
}

async function eventsOf(roomId: string) {
  return readEventsAfter(database.db, roomId, 0, 5000);
}

type StepResult = { toolResults: { name: string; output?: { ok?: boolean; error?: string } }[] };

describe("the repeated tool call guard", () => {
  it("refuses the third identical call of a run, tells the model and the feed, and stops the run", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const same = { text: "Rain on the window", x: 10, y: 20 };
    // The arguments' keys in another order are the same call.
    const reordered = { y: 20, x: 10, text: "Rain on the window" };
    const looping = scriptedSteps([
      toolStep([{ id: "a", name: "create_node", input: same }]),
      toolStep([{ id: "b", name: "create_node", input: reordered }]),
      toolStep([{ id: "c", name: "create_node", input: same }]),
      toolStep([{ id: "d", name: "create_node", input: same }]),
      textStep("Done."),
    ]);
    await setAgentModel(database, songwriter.id, "mock:looping");
    const worker = await startTestWorker(database, { resolveModel: mockResolver({ looping }) });
    try {
      const run = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Go" }, alice);
      const [finished] = await settled(roomId, 1);
      expect(finished!.status).toBe("failed");
      expect(finished!.error).toMatchObject({ error_type: "repeated_tool_call" });
      // The third call's refusal is what the model was answered; no fourth step was asked for.
      expect(looping.doStreamCalls).toHaveLength(3);
      const events = await eventsOf(roomId);
      const steps = events.filter((event) => event.type === "run.step").map((event) => event.payload as StepResult);
      expect(steps).toHaveLength(3);
      expect(steps[2]!.toolResults[0]!.output).toMatchObject({ ok: false });
      expect(steps[2]!.toolResults[0]!.output!.error).toMatch(/called create_node with the same arguments 3 times/);
      expect(await database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId))).toHaveLength(2);
      const reached = events.find((event) => event.type === "limit.reached");
      expect(reached).toMatchObject({ payload: { limit: "repeated_tool_call", runId: run.id, used: 3, allowed: 3 } });
    } finally {
      await worker.stop();
    }
  });

  it("lets different arguments through, however often the tool is called", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const busy = scriptedSteps([
      ...[0, 1, 2, 3].map((index) =>
        toolStep([{ id: `n${index}`, name: "create_node", input: { text: `Verse ${index}`, x: index * 100, y: 0 } }]),
      ),
      textStep("Done."),
    ]);
    await setAgentModel(database, songwriter.id, "mock:busy");
    const worker = await startTestWorker(database, { resolveModel: mockResolver({ busy }) });
    try {
      await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Go" }, alice);
      const [finished] = await settled(roomId, 1);
      expect(finished!.status).toBe("succeeded");
      expect(await database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId))).toHaveLength(4);
    } finally {
      await worker.stop();
    }
  });
});

describe("the repeated exchange guard", () => {
  it("stops two agents asking each other the same thing at the third time, with an event saying why", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const storyteller = await agentByPersona(database, roomId, "storyteller");
    const askStoryteller = scriptedSteps([
      toolStep([
        { id: "r", name: "request_agent", input: { targetPersona: "storyteller", prompt: "Tell the story of the rain again, please." } },
      ]),
      textStep("Asked."),
    ]);
    const askSongwriter = scriptedSteps([
      toolStep([
        { id: "r", name: "request_agent", input: { targetPersona: "songwriter", prompt: "Please tell the story of the RAIN again!" } },
      ]),
      textStep("Asked back."),
    ]);
    await setAgentModel(database, songwriter.id, "mock:askStoryteller");
    await setAgentModel(database, storyteller.id, "mock:askSongwriter");
    const worker = await startTestWorker(database, { resolveModel: mockResolver({ askStoryteller, askSongwriter }) });
    try {
      const first = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Go" }, alice);
      // Songwriter → Storyteller → Songwriter, whose ask back would be the third saying the same.
      const all = await settled(roomId, 3);
      const third = all.find((run) => run.chainDepth === 2)!;
      expect(third.agentId).toBe(songwriter.id);
      expect(third.status).toBe("failed");
      expect(third.error).toMatchObject({ error_type: "repeated_exchange" });
      expect(all.find((run) => run.id === first.id)!.status).toBe("succeeded");
      const requests = await database.db
        .select()
        .from(boardEntries)
        .where(and(eq(boardEntries.roomId, roomId), eq(boardEntries.kind, "request")));
      expect(requests).toHaveLength(2);
      const events = await eventsOf(roomId);
      const refusal = events
        .filter((event) => event.type === "run.step" && (event.payload as { runId: string }).runId === third.id)
        .map((event) => event.payload as StepResult)[0]!.toolResults[0]!;
      expect(refusal.output?.error).toMatch(
        /Songwriter and Storyteller have asked each other much the same thing 3 times in this workflow/,
      );
      const reached = events.find((event) => event.type === "limit.reached");
      expect(reached).toMatchObject({ payload: { limit: "repeated_exchange", runId: third.id, used: 3, allowed: 3 } });
    } finally {
      await worker.stop();
    }
  });

  it("leaves agents started afresh to ask what they like: each start is a workflow of its own", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const storyteller = await agentByPersona(database, roomId, "storyteller");
    const asking = scriptedSteps([
      toolStep([
        { id: "r", name: "request_agent", input: { targetPersona: "storyteller", prompt: "Tell the story of the rain again, please." } },
      ]),
      textStep("Asked."),
    ]);
    await setAgentModel(database, songwriter.id, "mock:asking");
    await setAgentModel(database, storyteller.id, "script:storyteller");
    const worker = await startTestWorker(database, { resolveModel: mockResolver({ asking }) });
    try {
      for (let start = 1; start <= 3; start++) {
        await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: `Go ${start}` }, alice);
        await settled(roomId, start * 2);
      }
      const all = await database.db.select().from(runs).where(eq(runs.roomId, roomId));
      expect(all.filter((run) => run.agentId === songwriter.id).map((run) => run.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
      expect((await eventsOf(roomId)).some((event) => event.type === "limit.reached")).toBe(false);
    } finally {
      await worker.stop();
    }
  });
});

const ASK = "Tell the story of the rain in the harbour again, please.";
/** Much the same as `ASK`, in other case and punctuation. */
const ASKED_AGAIN = "Please tell the story of the RAIN in the harbour again!";

/** A request on the board from one agent to another, as the workflow's events record it. */
const boardRequest =
  (help: boolean, words: (from: Agent) => string = () => ASK) =>
  (from: Agent, to: Agent): EventDraft<"board.posted"> => ({
    type: "board.posted",
    actor: from,
    payload: {
      entry: boardEntryDto({
        id: randomUUID(),
        agentId: from.id,
        agentName: from.name,
        kind: "request",
        targetPersona: to.persona,
        requestStatus: "answered",
        content: { targetPersona: to.persona, ask: words(from), refNodeIds: [], ...(help ? { help: true } : {}) },
      }),
    },
  });

const dialogueOpened = (from: Agent, to: Agent): EventDraft<"dialogue.opened"> => ({
  type: "dialogue.opened",
  actor: from,
  payload: { dialogue: dialogueDto({ id: randomUUID(), askerAgentId: from.id, addresseeAgentId: to.id, topic: ASK }) },
});

const questionAsked = (from: Agent, to: Agent): EventDraft<"broadcast.asked"> => ({
  type: "broadcast.asked",
  actor: from,
  payload: {
    broadcast: broadcastDto({
      id: randomUUID(),
      agentId: from.id,
      agentName: from.name,
      mode: "agents",
      question: ASK,
      targetAgentIds: [to.id],
    }),
  },
});

/** Each way one agent asks another, with what an earlier ask of that way leaves in the workflow. */
const WAYS_OF_ASKING: { tool: string; input: unknown; settings?: RoomSettingsPatch; record: (from: Agent, to: Agent) => EventDraft }[] = [
  { tool: "request_help", input: { target: "storyteller", question: ASKED_AGAIN }, record: boardRequest(true) },
  {
    tool: "share_creative_context",
    input: { entryType: "request", content: { targetPersona: "storyteller", ask: ASKED_AGAIN, refNodeIds: [] } },
    record: boardRequest(false),
  },
  { tool: "ask_teammate", input: { target: "Storyteller", question: ASKED_AGAIN }, record: dialogueOpened },
  {
    tool: "ask_others",
    input: { question: ASKED_AGAIN, target_agents: ["storyteller"] },
    settings: { broadcast: "agents" },
    record: questionAsked,
  },
];

/**
 * A room where Songwriter asked Storyteller and Storyteller asked back much the same, each with
 * `record`, in one workflow; and a run of Songwriter queued in that workflow, its model `model`.
 */
async function askedTwice(record: (from: Agent, to: Agent) => EventDraft, model: string, settings: RoomSettingsPatch = {}) {
  const { roomId } = await createTestRoom(database.db, settings);
  const songwriter = await agentByPersona(database, roomId, "songwriter");
  const storyteller = await agentByPersona(database, roomId, "storyteller");
  await setAgentModel(database, songwriter.id, model);
  const correlationId = randomUUID();
  const asks = [record(songwriter, storyteller), record(storyteller, songwriter)];
  const { result: run } = await writeRoomEvents(database.db, roomId, async (tx, emit, at) => {
    for (const ask of asks) emit({ ...ask, correlationId });
    return enqueueRun(tx, emit, {
      roomId,
      agentId: songwriter.id,
      trigger: "request",
      requestedBy: storyteller,
      prompt: "Carry on.",
      chainDepth: 1,
      correlationId,
      at,
    });
  });
  return { roomId, run: run!, askType: asks[0]!.type };
}

describe("the repeated exchange guard, whichever way an agent asks", () => {
  it.each(WAYS_OF_ASKING)(
    "refuses $tool at the third saying the same, stops the run and says why",
    async ({ tool, input, settings, record }) => {
      const asking = scriptedSteps([toolStep([{ id: "ask", name: tool, input }]), textStep("Asked.")]);
      const { roomId, run, askType } = await askedTwice(record, "mock:asking", settings);
      const worker = await startTestWorker(database, { resolveModel: mockResolver({ asking }) });
      try {
        const [finished] = await settled(roomId, 1);
        expect(finished!.id).toBe(run.id);
        expect(finished!.status).toBe("failed");
        expect(finished!.error).toMatchObject({ error_type: "repeated_exchange" });
        expect(asking.doStreamCalls).toHaveLength(1);
        const events = await eventsOf(roomId);
        const [step] = events.filter((event) => event.type === "run.step").map((event) => event.payload as StepResult);
        expect(step!.toolResults[0]!.output?.error).toMatch(
          /Songwriter and Storyteller have asked each other much the same thing 3 times in this workflow/,
        );
        expect(events.find((event) => event.type === "limit.reached")).toMatchObject({
          payload: { limit: "repeated_exchange", runId: run.id, used: 3, allowed: 3 },
        });
        // The ask was not sent: no request, dialogue or question beyond the two recorded.
        expect(events.filter((event) => event.type === askType)).toHaveLength(2);
        expect(await database.db.select().from(boardEntries).where(eq(boardEntries.roomId, roomId))).toEqual([]);
        expect(await database.db.select().from(dialogues).where(eq(dialogues.roomId, roomId))).toEqual([]);
        expect(await database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId))).toEqual([]);
      } finally {
        await worker.stop();
      }
    },
  );

  it("refuses the third ask of a back-and-forth however it is worded, stops the run and says why", async () => {
    // Each asks the other back, in other words each time: no two asks say the same.
    const paraphrased = boardRequest(true, (from) =>
      from.persona === "songwriter"
        ? "Could you narrate the storm over the harbour?"
        : "Would you write a chorus for the lighthouse keeper?",
    );
    const asking = scriptedSteps([
      toolStep([
        { id: "ask", name: "request_help", input: { target: "storyteller", question: "What becomes of the fishing boats at dawn?" } },
      ]),
      textStep("Asked."),
    ]);
    const { roomId, run } = await askedTwice(paraphrased, "mock:asking");
    const worker = await startTestWorker(database, { resolveModel: mockResolver({ asking }) });
    try {
      const [finished] = await settled(roomId, 1);
      expect(finished!.id).toBe(run.id);
      expect(finished!.status).toBe("failed");
      expect(finished!.error).toMatchObject({ error_type: "repeated_exchange" });
      const events = await eventsOf(roomId);
      expect(events.find((event) => event.type === "limit.reached")).toMatchObject({
        payload: {
          limit: "repeated_exchange",
          runId: run.id,
          used: 3,
          allowed: 3,
          message: expect.stringMatching(
            /^Songwriter and Storyteller have asked each other back and forth 3 times in this workflow, each answering by asking back, which goes round in circles: this ask was not sent/,
          ),
        },
      });
      expect(events.filter((event) => event.type === "board.posted")).toHaveLength(2);
    } finally {
      await worker.stop();
    }
  });

  it("opens no dialogue from an agent's words that would be the third saying the same, and says why", async () => {
    const speaking = scriptedSteps([textStep(`Storyteller, ${ASKED_AGAIN}`)]);
    const { roomId, run } = await askedTwice(dialogueOpened, "mock:speaking");
    const worker = await startTestWorker(database, { resolveModel: mockResolver({ speaking }) });
    try {
      const [finished] = await settled(roomId, 1);
      // The run said its piece and ended; only the dialogue its words asked for is refused.
      expect(finished!.status).toBe("succeeded");
      const events = await eventsOf(roomId);
      expect(events.find((event) => event.type === "limit.reached")).toMatchObject({
        payload: {
          limit: "repeated_exchange",
          runId: run.id,
          agentId: run.agentId,
          used: 3,
          allowed: 3,
          message: expect.stringMatching(
            /Songwriter and Storyteller have asked each other much the same thing 3 times in this workflow, .*no dialogue was opened/,
          ),
        },
      });
      expect(events.filter((event) => event.type === "dialogue.opened")).toHaveLength(2);
      expect(await database.db.select().from(dialogues).where(eq(dialogues.roomId, roomId))).toEqual([]);
    } finally {
      await worker.stop();
    }
  });
});
