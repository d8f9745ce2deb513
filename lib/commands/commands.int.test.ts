import type { LanguageModelV4, LanguageModelV4Prompt } from "@ai-sdk/provider";
import { and, asc, eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { agentNotes, canvasNodes, events, runs, seats, vaultTasks } from "@/db/schema";
import { POST as takeSeat } from "@/app/api/rooms/[roomId]/seat/route";
import { GET as snapshot } from "@/app/api/rooms/[roomId]/route";
import { DELETE as withdraw } from "@/app/api/rooms/[roomId]/commands/[commandId]/route";
import { POST as send } from "@/app/api/rooms/[roomId]/commands/route";
import { POST as startRun } from "@/app/api/rooms/[roomId]/runs/route";
import { cancelRun } from "@/lib/agents/cancel-run";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { readEventsAfter } from "@/lib/events/read-events";
import type { WorkerOptions } from "@/lib/agents/worker";
import { type ModelResolver, resolveModel } from "@/lib/models/registry";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { startChatServer } from "@/test/chat-server";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { call, cookieFrom, fromOwnAddress } from "@/test/http";
import { gate, mockResolver, scriptedSteps, setAgentModel, textStep, toolStep } from "@/test/mock-models";
import { standInResolver } from "@/test/stand-in-resolver";
import { useTestRuntime } from "@/test/test-runtime";

// Durable: a test restarts the database under the room.
const context = useTestRuntime({ durable: true });
afterEach(() => {
  vi.unstubAllEnvs();
});

/** Configures the server with `server` as its OpenAI-compatible provider, so that agents on it may be started. */
function serveOpenAICompatible(server: { baseURL: string }) {
  vi.stubEnv("OPENAI_COMPATIBLE_BASE_URL", server.baseURL);
  vi.stubEnv("OPENAI_COMPATIBLE_API_KEY", "k");
}

async function seated(roomId: string, displayName = "Ada") {
  const seat = await call(takeSeat, { url: "/x", method: "POST", params: { roomId }, body: { displayName } });
  return cookieFrom(seat.headers.get("set-cookie"));
}

const say = (roomId: string, text: string, cookie?: string) =>
  call(send, { url: `/api/rooms/${roomId}/commands`, method: "POST", params: { roomId }, body: { text }, cookie });

/**
 * A room with Ada seated and its Songwriter on a stand-in OpenAI-compatible server that
 * answers with `reply`, and a worker running its runs.
 */
async function songwriterOnTheWire(reply: Parameters<typeof startChatServer>[0], workerOptions: Partial<WorkerOptions> = {}) {
  const { roomId } = await createTestRoom(context.database.db);
  const cookie = await seated(roomId);
  const songwriter = await agentByPersona(context.database, roomId, "songwriter");
  await setAgentModel(context.database, songwriter.id, "openai-compatible:stand-in");
  const server = await startChatServer(reply);
  serveOpenAICompatible(server);
  const worker = await startTestWorker(context.database, { resolveModel: standInResolver(server), ...workerOptions });
  const stop = async () => {
    await worker.stop();
    await server.close();
  };
  return { roomId, cookie, songwriter, server, worker, stop };
}

async function runsOf(agentId: string) {
  return context.database.db.select().from(runs).where(eq(runs.agentId, agentId));
}

async function runOf(runId: string) {
  const [row] = await context.database.db.select().from(runs).where(eq(runs.id, runId));
  return row!;
}

/** Waits until no run of the room is queued or running. */
async function settled(roomId: string) {
  await eventually(async () => {
    const all = await context.database.db.select().from(runs).where(eq(runs.roomId, roomId));
    expect(all.filter((run) => run.status === "queued" || run.status === "running")).toEqual([]);
  }, 15_000);
}

/** The `command.delivered` events of a room, in order. */
async function deliveries(roomId: string) {
  const rows = await context.database.db
    .select({ payload: events.payload })
    .from(events)
    .where(and(eq(events.roomId, roomId), eq(events.type, "command.delivered")))
    .orderBy(events.seq);
  return rows.map((row) => row.payload);
}

/** The pieces the offline agents made acting on Ada's message `text`. */
async function actedOn(roomId: string, text: string) {
  const made = await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId));
  return made.filter((node) => node.text.startsWith(`As Ada asked — “${text}”`));
}

async function eventTypes(roomId: string) {
  return (
    await context.database.db.select({ type: events.type }).from(events).where(eq(events.roomId, roomId)).orderBy(asc(events.seq))
  ).map((row) => row.type);
}

describe("@agent commands", () => {
  it("refuses spectators and bad input with a clear reason, changing nothing", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const cookie = await seated(roomId);
    const before = await eventTypes(roomId);

    expect((await say(roomId, "@Songwriter try a sea shanty")).status).toBe(403);
    const unknown = await say(roomId, "@Drummer play louder", cookie);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/no agent "Drummer".*@Idea Weaver.*@Songwriter/);
    const command = await say(roomId, "/shout hi", cookie);
    expect(command.status).toBe(400);
    expect(command.body.error.message).toMatch(/Unknown command \/shout.*\/focus/);
    expect((await say(roomId, "   ", cookie)).status).toBe(400);
    const long = await say(roomId, `@Songwriter ${"a".repeat(2001)}`, cookie);
    expect(long.status).toBe(400);
    expect(long.body.error.message).toMatch(/at most 2000/);
    expect((await call(send, { url: "/x", method: "POST", params: { roomId }, body: { text: 5 }, cookie })).status).toBe(400);
    // Nobody has worked yet: a message naming nobody has nowhere to go.
    const nobody = await say(roomId, "more please", cookie);
    expect(nobody.status).toBe(400);
    expect(nobody.body.error.message).toMatch(/name one/);

    expect(await eventTypes(roomId)).toEqual(before);
    expect(await context.database.db.select().from(agentNotes).where(eq(agentNotes.roomId, roomId))).toHaveLength(0);
  });

  it("starts an idle agent at once, and gives a queued run the message instead of a second run", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const cookie = await seated(roomId);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const painter = await agentByPersona(context.database, roomId, "scene-painter");

    const idle = await say(roomId, "@songwriter try a sea shanty", cookie);
    expect(idle.status).toBe(201);
    expect(idle.body.command).toMatchObject({ agentId: songwriter.id, text: "try a sea shanty", delivery: "new_run", senderName: "Ada" });
    const [started] = await runsOf(songwriter.id);
    expect(started).toMatchObject({ id: idle.body.command.runId, trigger: "command", status: "queued" });

    // A retried request (same key) is the same message, not a second one.
    const retry = (text: string) =>
      call(send, { url: "/x", method: "POST", params: { roomId }, body: { text }, cookie, headers: { "idempotency-key": "key-1" } });
    const once = await retry("@Storyteller begin at the harbour");
    const twice = await retry("@Storyteller begin at the harbour");
    expect(twice.body).toEqual(once.body);
    expect((await retry("@Storyteller something else")).status).toBe(409);

    const queued = await startAgentRun(context.database.db, roomId, { agentId: painter.id, prompt: "Paint" }, alice);
    const toQueued = await say(roomId, "@Scene Painter: use more blue", cookie);
    expect(toQueued.body.command).toMatchObject({ agentId: painter.id, delivery: "queued_run", runId: queued.id });
    expect(await runsOf(painter.id)).toHaveLength(1);

    // The room shows both as waiting.
    const state = await call(snapshot, { url: "/x", method: "GET", params: { roomId }, cookie });
    const storyteller = await agentByPersona(context.database, roomId, "storyteller");
    expect(state.body.pendingCommands.map((pending: { agentId: string }) => pending.agentId).sort()).toEqual(
      [songwriter.id, painter.id, storyteller.id].sort(),
    );
  });

  it("sends plain text to the seat's /focus", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const cookie = await seated(roomId);
    const storyteller = await agentByPersona(context.database, roomId, "storyteller");

    const focus = await say(roomId, "/focus Storyteller", cookie);
    expect(focus.status).toBe(200);
    expect(focus.body).toEqual({ kind: "focus", agentId: storyteller.id });
    expect((await say(roomId, "a twist at the end", cookie)).body.command.agentId).toBe(storyteller.id);
    expect((await say(roomId, "/focus Nobody", cookie)).status).toBe(400);
    expect(await eventTypes(roomId)).toEqual(expect.arrayContaining(["seat.focused", "command.sent"]));
  });

  it("sends plain text under automatic focus to the agent that stepped last, not to the run started last", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const cookie = await seated(roomId);
    const storyteller = await agentByPersona(context.database, roomId, "storyteller");
    const curator = await agentByPersona(context.database, roomId, "curator");
    const [secondStep, lastStep] = [gate(), gate()];
    const read = (id: string) => toolStep([{ id, name: "read_shared_context", input: {} }]);
    const models = {
      slow: scriptedSteps([read("s1"), read("s2"), textStep("Done.")], { stepGates: { 1: secondStep.promise, 2: lastStep.promise } }),
      quick: scriptedSteps([read("q1"), textStep("Done.")]),
    };
    await setAgentModel(context.database, storyteller.id, "mock:slow");
    await setAgentModel(context.database, curator.id, "mock:quick");
    const stepsOf = async (runId: string) =>
      (
        await context.database.db
          .select({ payload: events.payload })
          .from(events)
          .where(and(eq(events.roomId, roomId), eq(events.type, "run.step")))
      )
        .map((row) => row.payload as { runId: string; step: number })
        .filter((step) => step.runId === runId)
        .map((step) => step.step);
    const worker = await startTestWorker(context.database, { resolveModel: mockResolver(models) });
    try {
      // The Storyteller starts first and keeps stepping; the Curator starts later and is done first.
      const older = await startAgentRun(context.database.db, roomId, { agentId: storyteller.id, prompt: "Tell it slowly" }, alice);
      await eventually(async () => expect(await stepsOf(older.id)).toEqual([0]), 10_000);
      const newer = await startAgentRun(context.database.db, roomId, { agentId: curator.id, prompt: "Group quickly" }, alice);
      await eventually(async () => expect((await runOf(newer.id)).status).toBe("succeeded"), 10_000);
      secondStep.release();
      await eventually(async () => expect(await stepsOf(older.id)).toEqual([0, 1]), 10_000);
      expect((await runOf(newer.id)).startedAt!.getTime()).toBeGreaterThan((await runOf(older.id)).startedAt!.getTime());

      expect((await say(roomId, "/focus", cookie)).body).toEqual({ kind: "focus", agentId: null });
      const sent = await say(roomId, "tidy up", cookie);
      expect(sent.status).toBe(201);
      expect(sent.body.command).toMatchObject({ agentId: storyteller.id, delivery: "next_step", runId: older.id });
    } finally {
      secondStep.release();
      lastStep.release();
      await settled(roomId);
      await worker.stop();
    }
  });

  it("limits a seat to ten messages a minute, saying when to try again", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const cookie = await seated(roomId);
    const other = await seated(roomId, "Ben");
    for (let index = 0; index < 10; index++) expect((await say(roomId, `@Songwriter line ${index}`, cookie)).status).toBe(201);
    const limited = await say(roomId, "@Songwriter one more", cookie);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(limited.body.error.message).toMatch(/At most 10 messages a minute/);
    expect((await say(roomId, "@Songwriter from Ben", other)).status).toBe(201);
    const notes = await context.database.db.select().from(agentNotes).where(eq(agentNotes.roomId, roomId));
    expect(notes).toHaveLength(11);
  });

  it("counts a message that starts a run against its address's allowance of agents started, however many seats send it", async () => {
    vi.stubEnv("PARLEY_RUN_STARTS_PER_MINUTE", "2");
    try {
      const { roomId } = await createTestRoom(context.database.db);
      const address = fromOwnAddress();
      const seatFrom = async (displayName: string, headers: Record<string, string>) =>
        cookieFrom(
          (await call(takeSeat, { url: "/x", method: "POST", params: { roomId }, body: { displayName }, headers })).headers.get(
            "set-cookie",
          ),
        );
      const [ada, ben, cy] = [await seatFrom("Ada", address), await seatFrom("Ben", address), await seatFrom("Cy", address)];
      const sayFrom = (text: string, cookie: string, headers: Record<string, string>) =>
        call(send, { url: "/x", method: "POST", params: { roomId }, body: { text }, cookie, headers });
      const painter = await agentByPersona(context.database, roomId, "scene-painter");

      expect((await sayFrom("@Songwriter a sea shanty", ada, address)).body.command.delivery).toBe("new_run");
      expect((await sayFrom("@Storyteller begin at the harbour", ben, address)).body.command.delivery).toBe("new_run");
      const before = await readEventsAfter(context.database.db, roomId, 0);
      const refused = await sayFrom("@Scene Painter: a storm at sea", cy, address);
      expect(refused.status).toBe(429);
      expect(refused.body.error.message).toMatch(/Too many agents started: at most 2 a minute from one address; try again in \d+ s/);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      // Nothing was written: no message, no event, no run.
      expect(await readEventsAfter(context.database.db, roomId, 0)).toHaveLength(before.length);
      expect(await context.database.db.select().from(agentNotes).where(eq(agentNotes.agentId, painter.id))).toEqual([]);
      expect(await runsOf(painter.id)).toEqual([]);
      // Starting one directly shares the allowance.
      expect(
        (
          await call(startRun, {
            url: "/x",
            method: "POST",
            params: { roomId },
            body: { agentId: painter.id },
            cookie: cy,
            headers: address,
          })
        ).status,
      ).toBe(429);

      // A message to an agent that has a run already starts none and is not counted; another address has its own allowance.
      expect((await sayFrom("@Songwriter make it rhyme", cy, address)).body.command.delivery).toBe("queued_run");
      const elsewhere = await sayFrom("@Scene Painter: a storm at sea", cy, fromOwnAddress());
      expect(elsewhere.status).toBe(201);
      expect(elsewhere.body.command.delivery).toBe("new_run");
      expect(await runsOf(painter.id)).toHaveLength(1);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("counts /focus towards the same limit, and a refused /focus changes nothing", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const cookie = await seated(roomId);
    const storyteller = await agentByPersona(context.database, roomId, "storyteller");
    for (let index = 0; index < 6; index++) expect((await say(roomId, `@Songwriter line ${index}`, cookie)).status).toBe(201);
    for (const name of ["Curator", "Songwriter", "Curator"]) expect((await say(roomId, `/focus ${name}`, cookie)).status).toBe(200);
    expect((await say(roomId, "/focus Storyteller", cookie)).body).toEqual({ kind: "focus", agentId: storyteller.id });
    const before = await eventTypes(roomId);

    const focus = await say(roomId, "/focus Curator", cookie);
    expect(focus.status).toBe(429);
    expect(focus.body.error.message).toMatch(/At most 10 messages a minute from one seat, \/focus included/);
    const wait = Number(focus.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect((await say(roomId, "@Songwriter one more", cookie)).status).toBe(429);
    expect(await eventTypes(roomId)).toEqual(before);
    // The refused /focus left the seat's focus where it was.
    const [seat] = await context.database.db
      .select()
      .from(seats)
      .where(and(eq(seats.roomId, roomId), eq(seats.displayName, "Ada")));
    expect(seat!.focusAgentId).toBe(storyteller.id);
  });

  it("lets only its sender withdraw a waiting message, and not once delivered", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const cookie = await seated(roomId);
    const other = await seated(roomId, "Ben");
    const sent = (await say(roomId, "@Curator group by colour", cookie)).body.command;
    const remove = (commandId: string, as?: string) =>
      call(withdraw, { url: "/x", method: "DELETE", params: { roomId, commandId }, cookie: as });
    expect((await remove(sent.id)).status).toBe(403);
    expect((await remove(sent.id, other)).status).toBe(403);
    expect((await remove("missing", cookie)).status).toBe(404);
    expect((await remove(sent.id, cookie)).status).toBe(200);
    const [note] = await context.database.db.select().from(agentNotes).where(eq(agentNotes.id, sent.id));
    expect(note!.cancelledAt).not.toBeNull();
    expect(await eventTypes(roomId)).toContain("command.cancelled");
    const state = await call(snapshot, { url: "/x", method: "GET", params: { roomId }, cookie });
    expect(state.body.pendingCommands).toEqual([]);

    const delivered = (await say(roomId, "@Curator now by mood", cookie)).body.command;
    await context.database.db.update(agentNotes).set({ deliveredAt: new Date() }).where(eq(agentNotes.id, delivered.id));
    const late = await remove(delivered.id, cookie);
    expect(late.status).toBe(409);
  });

  it("cancels the run an idle agent was given for a message when its sender withdraws it, and no model is called", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const cookie = await seated(roomId);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    await setAgentModel(context.database, songwriter.id, "openai-compatible:stand-in");
    const server = await startChatServer(() => ({ text: "Done." }));
    serveOpenAICompatible(server);
    const sent = (await say(roomId, "@Songwriter try a sea shanty", cookie)).body.command;
    expect(sent.delivery).toBe("new_run");

    const withdrawn = await call(withdraw, { url: "/x", method: "DELETE", params: { roomId, commandId: sent.id }, cookie });
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body).toEqual({ commandId: sent.id, cancelled: true, cancelledRunId: sent.runId });
    expect(await runOf(sent.runId)).toMatchObject({
      status: "cancelled",
      cancelRequested: true,
      error: { error_type: "cancelled", error_message: "Cancelled by Ada." },
    });
    // The run ends in the withdrawal's own write, announced as any cancelled run.
    const written = await context.database.db
      .select({ type: events.type, createdAt: events.createdAt, payload: events.payload })
      .from(events)
      .where(eq(events.roomId, roomId))
      .orderBy(asc(events.seq));
    const cancelled = written.find((event) => event.type === "command.cancelled")!;
    const finished = written.find((event) => event.type === "run.finished")!;
    expect(finished.payload).toMatchObject({ runId: sent.runId, status: "cancelled" });
    expect(finished.createdAt).toEqual(cancelled.createdAt);
    // Withdrawing it again changes nothing.
    const again = await call(withdraw, { url: "/x", method: "DELETE", params: { roomId, commandId: sent.id }, cookie });
    expect(again.body).toEqual({ commandId: sent.id, cancelled: true, cancelledRunId: null });

    const worker = await startTestWorker(context.database, { resolveModel: standInResolver(server) });
    try {
      // A run queued after it is claimed after it: had the withdrawn message's run waited, it would have gone first.
      const later = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id, prompt: "Write a line" }, alice);
      await eventually(async () => expect((await runOf(later.id)).status).toBe("succeeded"), 10_000);
      await settled(roomId);
      expect(server.requests).toHaveLength(1);
      expect(server.userText(0)).toMatch(/^## Task\nWrite a line\n/);
      expect(server.userText(0)).not.toMatch(/## Messages for you/);
      expect(await deliveries(roomId)).toEqual([]);
      expect((await runsOf(songwriter.id)).map((run) => run.status).sort()).toEqual(["cancelled", "succeeded"]);
    } finally {
      await worker.stop();
      await server.close();
    }
  });

  it("leaves a queued run alone while other messages wait for it, and any run given a task of its own", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const cookie = await seated(roomId);
    const painter = await agentByPersona(context.database, roomId, "scene-painter");
    const remove = async (commandId: string) =>
      (await call(withdraw, { url: "/x", method: "DELETE", params: { roomId, commandId }, cookie })).body.cancelledRunId;

    const first = (await say(roomId, "@Curator group by colour", cookie)).body.command;
    const second = (await say(roomId, "@Curator and label the groups", cookie)).body.command;
    expect(second).toMatchObject({ delivery: "queued_run", runId: first.runId });
    expect(await remove(first.id)).toBeNull();
    expect(await runOf(first.runId)).toMatchObject({ status: "queued", cancelRequested: false });
    // The last message it was to act on goes, and the run with it.
    expect(await remove(second.id)).toBe(first.runId);
    expect((await runOf(first.runId)).status).toBe("cancelled");

    const painting = await startAgentRun(context.database.db, roomId, { agentId: painter.id, prompt: "Paint" }, alice);
    const toPainter = (await say(roomId, "@Scene Painter use more blue", cookie)).body.command;
    expect(toPainter).toMatchObject({ delivery: "queued_run", runId: painting.id });
    expect(await remove(toPainter.id)).toBeNull();
    expect(await runOf(painting.id)).toMatchObject({ status: "queued", cancelRequested: false });
  });

  it("leaves a run given for a message alone once it has started, running or handed back to the queue", async () => {
    const never = gate();
    const { roomId, cookie, server, worker, stop } = await songwriterOnTheWire(async (_request, index) => {
      // The first call hangs until its worker stops; the run is handed back and taken up again.
      if (index === 0) await never.promise;
      return { text: "Done." };
    });
    const remove = async (commandId: string) => call(withdraw, { url: "/x", method: "DELETE", params: { roomId, commandId }, cookie });
    let resumed: Awaited<ReturnType<typeof startTestWorker>> | null = null;
    try {
      const first = (await say(roomId, "@Songwriter write about the harbour", cookie)).body.command;
      expect(first.delivery).toBe("new_run");
      await eventually(() => expect(server.requests).toHaveLength(1), 10_000);
      const whileRunning = (await say(roomId, "@Songwriter add gulls", cookie)).body.command;
      expect(whileRunning).toMatchObject({ delivery: "next_step", runId: first.runId });
      const removed = await remove(whileRunning.id);
      expect(removed.status).toBe(200);
      expect(removed.body.cancelledRunId).toBeNull();
      expect(await runOf(first.runId)).toMatchObject({ status: "running", cancelRequested: false });

      // Handed back to the queue, it has read its message already: it still has work to do.
      await worker.stop();
      expect(await runOf(first.runId)).toMatchObject({ status: "queued", cancelRequested: false });
      const whileQueued = (await say(roomId, "@Songwriter and a bell", cookie)).body.command;
      expect(whileQueued).toMatchObject({ delivery: "queued_run", runId: first.runId });
      expect((await remove(whileQueued.id)).body.cancelledRunId).toBeNull();
      expect(await runOf(first.runId)).toMatchObject({ status: "queued", cancelRequested: false });

      resumed = await startTestWorker(context.database, { resolveModel: standInResolver(server) });
      await eventually(async () => expect((await runOf(first.runId)).status).toBe("succeeded"), 10_000);
      expect(server.requests.map((_request, index) => server.userText(index)).join("\n")).not.toMatch(/add gulls|a bell/);
    } finally {
      never.release();
      await resumed?.stop();
      await stop();
    }
  });

  it("puts a message to a running agent into that run's very next model call (on the wire)", async () => {
    const firstReply = gate();
    const { roomId, cookie, songwriter, server, stop } = await songwriterOnTheWire(async (_request, index) => {
      if (index === 0) {
        await firstReply.promise;
        return { toolCall: { name: "create_node", arguments: { text: "A first line", kind: "lyric" } } };
      }
      return { text: "Done." };
    });
    try {
      const run = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id, prompt: "Write a line" }, alice);
      await eventually(() => expect(server.requests).toHaveLength(1), 10_000);
      expect(server.userText(0)).not.toMatch(/harbour waltz/);

      const sent = await say(roomId, "@Songwriter try a harbour waltz", cookie);
      expect(sent.body.command).toMatchObject({ delivery: "next_step", runId: run.id });
      firstReply.release();

      await eventually(async () => {
        const [row] = await context.database.db.select().from(runs).where(eq(runs.id, run.id));
        expect(row!.status).toBe("succeeded");
      }, 10_000);
      expect(server.requests).toHaveLength(2);
      expect(server.userText(1)).toMatch(/Ada says: try a harbour waltz/);
      const [note] = await context.database.db.select().from(agentNotes).where(eq(agentNotes.id, sent.body.command.id));
      expect(note).toMatchObject({ deliveredToRunId: run.id, deliveredAtStep: 1 });
      const delivered = await context.database.db
        .select({ payload: events.payload })
        .from(events)
        .where(and(eq(events.roomId, roomId), eq(events.type, "command.delivered")));
      expect(delivered.map((row) => row.payload)).toEqual([
        { commandIds: [sent.body.command.id], agentId: songwriter.id, runId: run.id, step: 1 },
      ]);
      // One run: the message did not start another.
      expect(await runsOf(songwriter.id)).toHaveLength(1);
    } finally {
      await stop();
    }
  });

  it("has the offline agent act on a message sent mid-run in that run's very next model call", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const cookie = await seated(roomId);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    // The Songwriter's offline model as the worker resolves it, holding its first call until the message is sent.
    const firstCall = gate();
    const sent: LanguageModelV4Prompt[] = [];
    const resolveHeld: ModelResolver = (spec, agent) => {
      const resolved = resolveModel(spec, { scriptPaceMs: 0, agent });
      if (spec !== songwriter.model) return resolved;
      const model = resolved.model;
      const held: LanguageModelV4 = {
        specificationVersion: model.specificationVersion,
        provider: model.provider,
        modelId: model.modelId,
        supportedUrls: model.supportedUrls,
        doGenerate: (options) => model.doGenerate(options),
        doStream: async (options) => {
          sent.push(options.prompt);
          if (sent.length === 1) await firstCall.promise;
          return model.doStream(options);
        },
      };
      return { ...resolved, model: held };
    };
    const worker = await startTestWorker(context.database, { resolveModel: resolveHeld });
    try {
      const run = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id, prompt: "Write a verse about rain" }, alice);
      await eventually(() => expect(sent).toHaveLength(1), 10_000);
      const command = (await say(roomId, "@Songwriter try a sea shanty", cookie)).body.command;
      expect(command).toMatchObject({ delivery: "next_step", runId: run.id });
      firstCall.release();
      await eventually(async () => expect((await runOf(run.id)).status).toBe("succeeded"), 15_000);

      // The model's second call was the first to read it; every later one still shows it where it arrived.
      const reads = sent.map((prompt) => JSON.stringify(prompt).includes("Ada says: try a sea shanty"));
      expect(reads).toEqual(sent.map((_, index) => index >= 1));
      expect(await deliveries(roomId)).toEqual([{ commandIds: [command.id], agentId: songwriter.id, runId: run.id, step: 1 }]);
      // And that step acted on it, once, where the room sees it: in the feed's step and on the canvas.
      const transcript = (await runOf(run.id)).transcript as { role: string; step: number; text?: string; notes?: string[] }[];
      expect(transcript.filter((entry) => entry.step === 1).map((entry) => entry.role)).toEqual(["user", "assistant", "tool"]);
      expect(transcript.find((entry) => entry.step === 1 && entry.role === "user")!.notes).toEqual(["Ada says: try a sea shanty"]);
      expect(transcript.find((entry) => entry.step === 1 && entry.role === "assistant")!.text).toBe(
        "Ada asked me to try a sea shanty — doing that now.",
      );
      const made = await actedOn(roomId, "try a sea shanty");
      expect(made).toHaveLength(1);
      expect(made[0]!.kind).toBe("lyric");
      // It went on with its own work afterwards, in the same run.
      expect((await runOf(run.id)).steps).toBeGreaterThan(2);
      expect(await runsOf(songwriter.id)).toHaveLength(1);
    } finally {
      firstCall.release();
      await worker.stop();
    }
  });

  it("delivers waiting messages once, in order, to the next run after a restart, and the offline agent acts on them", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const cookie = await seated(roomId);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    // Sent while no worker runs: they wait in the database.
    const first = (await say(roomId, "@Songwriter write about a lighthouse", cookie)).body.command;
    const second = (await say(roomId, "@Songwriter and make it rhyme", cookie)).body.command;
    expect(second.delivery).toBe("queued_run");
    // The server goes down and comes back: PGlite reopens its directory, PostgreSQL gets a new pool.
    await context.restart();
    const state = await call(snapshot, { url: "/x", method: "GET", params: { roomId }, cookie });
    expect(state.body.pendingCommands.map((pending: { id: string }) => pending.id)).toEqual([first.id, second.id]);

    const workers = [await startTestWorker(context.database), await startTestWorker(context.database)];
    try {
      await eventually(async () => expect((await runOf(first.runId)).status).toBe("succeeded"), 15_000);
      await settled(roomId);
      const notes = await context.database.db.select().from(agentNotes).where(eq(agentNotes.agentId, songwriter.id));
      expect(notes.every((note) => note.deliveredToRunId === first.runId && note.deliveredAtStep === 0)).toBe(true);
      expect(await deliveries(roomId)).toEqual([
        { commandIds: [first.id, second.id], agentId: songwriter.id, runId: first.runId, step: 0 },
      ]);
      expect(await actedOn(roomId, "write about a lighthouse")).toHaveLength(1);
      expect(await actedOn(roomId, "and make it rhyme")).toHaveLength(1);
      expect(await runsOf(songwriter.id)).toHaveLength(1);
      // The agent's task history says what it was asked: the messages, not "act on your messages".
      const [task] = await context.database.db.select().from(vaultTasks).where(eq(vaultTasks.runId, first.runId));
      expect(task).toMatchObject({
        identity: songwriter.identity,
        asked: "Ada says: write about a lighthouse / Ada says: and make it rhyme",
        outcome: "done",
      });
    } finally {
      for (const worker of workers) await worker.stop();
    }
  });

  it("gives messages meant for a queued run that is cancelled a run of their own: delivered once, in order", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const cookie = await seated(roomId);
    const painter = await agentByPersona(context.database, roomId, "scene-painter");
    const queued = await startAgentRun(context.database.db, roomId, { agentId: painter.id, prompt: "Paint" }, alice);
    const first = (await say(roomId, "@Scene Painter use more blue", cookie)).body.command;
    const second = (await say(roomId, "@Scene Painter and a little gold", cookie)).body.command;
    expect([first.delivery, second.delivery]).toEqual(["queued_run", "queued_run"]);
    expect(await cancelRun(context.database.db, roomId, queued.id, alice)).toBe("cancelled");

    const followUp = (await runsOf(painter.id)).find((run) => run.id !== queued.id);
    expect(followUp).toMatchObject({ status: "queued", trigger: "command", requestedBy: first.senderId });
    const worker = await startTestWorker(context.database);
    try {
      await eventually(async () => expect((await runOf(followUp!.id)).status).toBe("succeeded"), 15_000);
      await settled(roomId);
      expect(await deliveries(roomId)).toEqual([{ commandIds: [first.id, second.id], agentId: painter.id, runId: followUp!.id, step: 0 }]);
      expect(await actedOn(roomId, "use more blue")).toHaveLength(1);
      expect(await actedOn(roomId, "and a little gold")).toHaveLength(1);
      expect((await runsOf(painter.id)).map((run) => run.status).sort()).toEqual(["cancelled", "succeeded"]);
    } finally {
      await worker.stop();
    }
  });

  it("gives a message sent while a run takes its last step a run of its own once that run has succeeded", async () => {
    const lastCall = gate();
    const { roomId, cookie, songwriter, server, stop } = await songwriterOnTheWire(async (_request, index) => {
      // The run's one call, which ends it, waits until the message has been sent.
      if (index === 0) await lastCall.promise;
      return { text: "Done." };
    });
    try {
      const run = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id, prompt: "Write a line" }, alice);
      await eventually(() => expect(server.requests).toHaveLength(1), 10_000);
      const sent = (await say(roomId, "@Songwriter try a fiddle reel", cookie)).body.command;
      expect(sent).toMatchObject({ delivery: "next_step", runId: run.id });
      lastCall.release();

      await eventually(() => expect(server.requests).toHaveLength(2), 10_000);
      await settled(roomId);
      expect((await runOf(run.id)).status).toBe("succeeded");
      const followUp = (await runsOf(songwriter.id)).find((other) => other.id !== run.id)!;
      expect(followUp).toMatchObject({ status: "succeeded", trigger: "command", requestedBy: sent.senderId });
      expect(server.userText(0)).not.toMatch(/fiddle reel/);
      expect(server.userText(1)).toMatch(/Ada says: try a fiddle reel/);
      expect(await deliveries(roomId)).toEqual([{ commandIds: [sent.id], agentId: songwriter.id, runId: followUp.id, step: 0 }]);
      expect(await runsOf(songwriter.id)).toHaveLength(2);
    } finally {
      lastCall.release();
      await stop();
    }
  });

  it("gives a message meant for a running run's next step a run of its own when that run is cancelled first", async () => {
    const never = gate();
    const { roomId, cookie, songwriter, server, stop } = await songwriterOnTheWire(
      async (_request, index) => {
        // The first call hangs until the run is cancelled under it.
        if (index === 0) await never.promise;
        return { text: "Done." };
      },
      { heartbeatMs: 100 },
    );
    try {
      const run = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id, prompt: "Write a line" }, alice);
      await eventually(() => expect(server.requests).toHaveLength(1), 10_000);
      const sent = (await say(roomId, "@Songwriter try a rowing song", cookie)).body.command;
      expect(sent).toMatchObject({ delivery: "next_step", runId: run.id });
      expect(await cancelRun(context.database.db, roomId, run.id, alice)).toBe("stopping");

      await eventually(() => expect(server.requests).toHaveLength(2), 10_000);
      await settled(roomId);
      expect((await runOf(run.id)).status).toBe("cancelled");
      const followUp = (await runsOf(songwriter.id)).find((other) => other.id !== run.id)!;
      expect(followUp).toMatchObject({ status: "succeeded", trigger: "command" });
      expect(server.userText(0)).not.toMatch(/rowing song/);
      expect(server.userText(1)).toMatch(/Ada says: try a rowing song/);
      expect(await deliveries(roomId)).toEqual([{ commandIds: [sent.id], agentId: songwriter.id, runId: followUp.id, step: 0 }]);
      expect(await runsOf(songwriter.id)).toHaveLength(2);
    } finally {
      never.release();
      await stop();
    }
  });
});
