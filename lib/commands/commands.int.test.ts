import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agentNotes, canvasNodes, events, runs } from "@/db/schema";
import { POST as takeSeat } from "@/app/api/rooms/[roomId]/seat/route";
import { GET as snapshot } from "@/app/api/rooms/[roomId]/route";
import { DELETE as withdraw } from "@/app/api/rooms/[roomId]/commands/[commandId]/route";
import { POST as send } from "@/app/api/rooms/[roomId]/commands/route";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { getEnv } from "@/lib/env";
import { resolveModel } from "@/lib/models/registry";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { startChatServer } from "@/test/chat-server";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { call, cookieFrom } from "@/test/http";
import { gate, setAgentModel } from "@/test/mock-models";
import { useTestRuntime } from "@/test/test-runtime";

const context = useTestRuntime();

async function seated(roomId: string, displayName = "Ada") {
  const seat = await call(takeSeat, { url: "/x", method: "POST", params: { roomId }, body: { displayName } });
  return cookieFrom(seat.headers.get("set-cookie"));
}

const say = (roomId: string, text: string, cookie?: string) =>
  call(send, { url: `/api/rooms/${roomId}/commands`, method: "POST", params: { roomId }, body: { text }, cookie });

async function runsOf(agentId: string) {
  return context.database.db.select().from(runs).where(eq(runs.agentId, agentId));
}

async function eventTypes(roomId: string) {
  return (await context.database.db.select({ type: events.type }).from(events).where(eq(events.roomId, roomId))).map((row) => row.type);
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

  it("sends plain text to the seat's /focus, or to the agent that stepped last", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const cookie = await seated(roomId);
    const storyteller = await agentByPersona(context.database, roomId, "storyteller");
    const curator = await agentByPersona(context.database, roomId, "curator");

    const focus = await say(roomId, "/focus Storyteller", cookie);
    expect(focus.status).toBe(200);
    expect(focus.body).toEqual({ kind: "focus", agentId: storyteller.id });
    expect((await say(roomId, "a twist at the end", cookie)).body.command.agentId).toBe(storyteller.id);
    expect((await say(roomId, "/focus Nobody", cookie)).status).toBe(400);

    // Automatic: whoever stepped most recently.
    await context.database.db.update(runs).set({ steps: 1, startedAt: new Date() }).where(eq(runs.agentId, storyteller.id));
    const worked = await startAgentRun(context.database.db, roomId, { agentId: curator.id, prompt: "Group" }, alice);
    await context.database.db.update(runs).set({ steps: 2, startedAt: new Date(Date.now() + 1000) }).where(eq(runs.id, worked.id));
    expect((await say(roomId, "/focus", cookie)).body).toEqual({ kind: "focus", agentId: null });
    expect((await say(roomId, "tidy up", cookie)).body.command.agentId).toBe(curator.id);
    expect(await eventTypes(roomId)).toEqual(expect.arrayContaining(["seat.focused", "command.sent"]));
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

  it("puts a message to a running agent into that run's very next model call (on the wire)", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const cookie = await seated(roomId);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    await setAgentModel(context.database, songwriter.id, "openai-compatible:stand-in");
    const firstReply = gate();
    const server = await startChatServer(async (_request, index) => {
      if (index === 0) {
        await firstReply.promise;
        return { toolCall: { name: "create_node", arguments: { text: "A first line", kind: "lyric" } } };
      }
      return { text: "Done." };
    });
    const env = { ...getEnv(), OPENAI_COMPATIBLE_BASE_URL: server.baseURL, OPENAI_COMPATIBLE_API_KEY: "k" };
    const worker = await startTestWorker(context.database, { resolveModel: (spec) => resolveModel(spec, { env, scriptPaceMs: 0 }) });
    try {
      const run = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id, prompt: "Write a line" }, alice);
      await eventually(() => expect(server.requests).toHaveLength(1), 10_000);
      expect(server.userText(0)).not.toMatch(/sea shanty/);

      const sent = await say(roomId, "@Songwriter try a sea shanty", cookie);
      expect(sent.body.command).toMatchObject({ delivery: "next_step", runId: run.id });
      firstReply.release();

      await eventually(async () => {
        const [row] = await context.database.db.select().from(runs).where(eq(runs.id, run.id));
        expect(row!.status).toBe("succeeded");
      }, 10_000);
      expect(server.requests).toHaveLength(2);
      expect(server.userText(1)).toMatch(/Ada says: try a sea shanty/);
      const [note] = await context.database.db.select().from(agentNotes).where(eq(agentNotes.id, sent.body.command.id));
      expect(note).toMatchObject({ deliveredToRunId: run.id, deliveredAtStep: 1 });
      const delivered = await context.database.db
        .select({ payload: events.payload })
        .from(events)
        .where(and(eq(events.roomId, roomId), eq(events.type, "command.delivered")));
      expect(delivered.map((row) => row.payload)).toEqual([{ commandIds: [sent.body.command.id], agentId: songwriter.id, runId: run.id, step: 1 }]);
      // One run: the message did not start another.
      expect(await runsOf(songwriter.id)).toHaveLength(1);
    } finally {
      await worker.stop();
      await server.close();
    }
  });

  it("delivers waiting messages once, in order, to the next run after a restart, and the offline agent acts on them", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const cookie = await seated(roomId);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    // Sent while no worker runs: they wait in the database, as across a restart.
    const first = (await say(roomId, "@Songwriter write about a lighthouse", cookie)).body.command;
    const second = (await say(roomId, "@Songwriter and make it rhyme", cookie)).body.command;
    expect(second.delivery).toBe("queued_run");
    const workers = [await startTestWorker(context.database), await startTestWorker(context.database)];
    try {
      await eventually(async () => {
        const [row] = await context.database.db.select().from(runs).where(eq(runs.id, first.runId));
        expect(row!.status).toBe("succeeded");
      }, 15_000);
      const notes = await context.database.db.select().from(agentNotes).where(eq(agentNotes.agentId, songwriter.id));
      expect(notes.every((note) => note.deliveredToRunId === first.runId && note.deliveredAtStep === 0)).toBe(true);
      const delivered = await context.database.db
        .select({ payload: events.payload })
        .from(events)
        .where(and(eq(events.roomId, roomId), eq(events.type, "command.delivered")));
      expect(delivered.map((row) => row.payload)).toEqual([{ commandIds: [first.id, second.id], agentId: songwriter.id, runId: first.runId, step: 0 }]);
      const made = await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId));
      const texts = made.map((node) => node.text);
      expect(texts.some((text) => text.startsWith("As Ada asked — “write about a lighthouse”"))).toBe(true);
      expect(texts.some((text) => text.startsWith("As Ada asked — “and make it rhyme”"))).toBe(true);
      expect(await runsOf(songwriter.id)).toHaveLength(1);
    } finally {
      for (const worker of workers) await worker.stop();
    }
  });
});
