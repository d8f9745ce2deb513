import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminActions, broadcastResponses, broadcasts, events, rooms, runs } from "@/db/schema";
import { askOthers } from "@/lib/broadcast/ask-others";
import { agentByPersona } from "@/test/agents";
import { broadcastDeps, broadcastStatus, leaveQuestion, waitForOpenQuestion } from "@/test/broadcasts";
import { createTestRoom } from "@/test/fixtures";
import { call, cookieFrom } from "@/test/http";
import { setAgentModel } from "@/test/mock-models";
import { useTestRuntime } from "@/test/test-runtime";
import { POST as answer } from "../broadcasts/[broadcastId]/answer/route";
import { POST as skip } from "../broadcasts/[broadcastId]/skip/route";
import { GET as snapshot } from "../route";
import { POST as takeSeat } from "../seat/route";
import { POST as cancel } from "./[runId]/cancel/route";
import { POST as start } from "./route";

const TOKEN = "admin-token-for-tests-0123";
const savedToken = process.env.ADMIN_TOKEN;

beforeAll(async () => {
  process.env.ADMIN_TOKEN = TOKEN;
});
afterAll(async () => {
  if (savedToken === undefined) delete process.env.ADMIN_TOKEN;
  else process.env.ADMIN_TOKEN = savedToken;
});

async function seated(roomId: string) {
  const seat = await call(takeSeat, { url: "/x", method: "POST", params: { roomId }, body: { displayName: "Ada" } });
  return cookieFrom(seat.headers.get("set-cookie"));
}

const context = useTestRuntime();

describe("starting and stopping agents", () => {
  it("lets a participant start an agent with or without a prompt, and refuses spectators and strangers' agents", async () => {
    const { roomId } = await createTestRoom(context.database.db, { task: "A song about the sea" });
    const { roomId: otherRoom } = await createTestRoom(context.database.db);
    const cookie = await seated(roomId);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const elsewhere = await agentByPersona(context.database, otherRoom, "songwriter");

    const started = await call(start, {
      url: "/x",
      method: "POST",
      params: { roomId },
      body: { agentId: songwriter.id, prompt: "Write a verse" },
      cookie,
    });
    expect(started.status).toBe(201);
    expect(started.body.run).toMatchObject({
      agentId: songwriter.id,
      status: "queued",
      trigger: "human",
      prompt: "Write a verse",
      requestedBy: expect.stringMatching(/^human:/),
    });
    const defaulted = await call(start, { url: "/x", method: "POST", params: { roomId }, body: { agentId: songwriter.id }, cookie });
    expect(defaulted.body.run.prompt).toMatch(/^A song about the sea/);

    expect((await call(start, { url: "/x", method: "POST", params: { roomId }, body: { agentId: songwriter.id } })).status).toBe(403);
    const foreign = await call(start, { url: "/x", method: "POST", params: { roomId }, body: { agentId: elsewhere.id }, cookie });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.message).toMatch(/is not in this room/);
    expect(
      (await call(start, { url: "/x", method: "POST", params: { roomId }, body: { agentId: songwriter.id, prompt: 5 }, cookie })).status,
    ).toBe(400);
    expect(await context.database.db.select().from(runs).where(eq(runs.roomId, roomId))).toHaveLength(2);
  });

  it("lets participants and admins cancel a run, and nobody else; an admin's stop is audited", async () => {
    const { roomId, room } = await createTestRoom(context.database.db);
    const cookie = await seated(roomId);
    const painter = await agentByPersona(context.database, roomId, "scene-painter");
    const run = (await call(start, { url: "/x", method: "POST", params: { roomId }, body: { agentId: painter.id }, cookie })).body.run;
    expect((await call(cancel, { url: "/x", method: "POST", params: { roomId, runId: run.id } })).status).toBe(403);
    const stopped = await call(cancel, {
      url: "/x",
      method: "POST",
      params: { roomId, runId: run.id },
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(stopped.body).toEqual({ runId: run.id, outcome: "cancelled" });
    expect((await call(cancel, { url: "/x", method: "POST", params: { roomId, runId: run.id }, cookie })).status).toBe(400);
    expect((await call(cancel, { url: "/x", method: "POST", params: { roomId, runId: "missing" }, cookie })).status).toBe(404);

    const audited = () => context.database.db.select().from(adminActions).where(eq(adminActions.roomId, roomId));
    expect(await audited()).toEqual([
      expect.objectContaining({
        actor: "admin",
        action: "run.cancelled",
        roomTitle: room.title,
        details: { runId: run.id, agentId: painter.id, outcome: "cancelled" },
      }),
    ]);
    const logged = await context.database.db.select().from(events).where(eq(events.roomId, roomId));
    expect(logged.filter((event) => event.type === "admin.action")).toEqual([
      expect.objectContaining({
        agent: "admin",
        targetAgent: painter.id,
        payload: expect.objectContaining({ action: "run.cancelled", runId: run.id }),
      }),
    ]);
    // A participant's stop is theirs: the room's log has it, the audit trail does not.
    const second = (await call(start, { url: "/x", method: "POST", params: { roomId }, body: { agentId: painter.id }, cookie })).body.run;
    expect((await call(cancel, { url: "/x", method: "POST", params: { roomId, runId: second.id }, cookie })).body).toEqual({
      runId: second.id,
      outcome: "cancelled",
    });
    expect(await audited()).toHaveLength(1);
  });

  it("shows in the room why an agent cannot run", async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    const { roomId } = await createTestRoom(context.database.db);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    await setAgentModel(context.database, songwriter.id, "openai:gpt-5");
    const room = await call(snapshot, { url: "/x", method: "GET", params: { roomId } });
    const shown = room.body.agents.find((agent: { id: string }) => agent.id === songwriter.id);
    expect(shown.unavailableReason).toBe("OPENAI_API_KEY is not set on the server.");
    if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
  });
});

describe("answering a question asked of the room", () => {
  it("takes an answer or a skip from a participant only, while the question is open", async () => {
    const { roomId } = await createTestRoom(context.database.db, { broadcast: "human", broadcast_timeout: 30 });
    const cookie = await seated(roomId);
    const deps = await broadcastDeps(context.database);
    try {
      const asker = await agentByPersona(context.database, roomId, "songwriter");
      const asking = askOthers(deps, { roomId, asker, runId: null, correlationId: "c", question: "Rain or sun?" });
      const open = await waitForOpenQuestion(context.database, roomId);
      const route = { url: "/x", method: "POST", params: { roomId, broadcastId: open.id } };
      expect((await call(answer, { ...route, body: { answer: "Rain" } })).status).toBe(403);
      expect((await call(answer, { ...route, body: { answer: "" }, cookie })).status).toBe(400);
      expect((await call(answer, { ...route, body: { reply: "Rain" }, cookie })).status).toBe(400);
      expect((await call(answer, { ...route, params: { roomId, broadcastId: "missing" }, body: { answer: "Rain" }, cookie })).status).toBe(
        404,
      );
      const given = await call(answer, { ...route, body: { answer: "Rain" }, cookie });
      expect(given.status).toBe(201);
      expect(given.body.response).toMatchObject({ content: "Rain", isHuman: true, responderName: "Ada" });
      expect(await asking).toMatchObject({ status: "complete", responses: [{ content: "Rain" }] });
      const late = await call(answer, { ...route, body: { answer: "Sun" }, cookie });
      expect(late.status).toBe(409);
      expect((await call(skip, { ...route, cookie })).status).toBe(409);

      const second = askOthers(deps, { roomId, asker, runId: null, correlationId: "c", question: "Another?" });
      const reopened = await waitForOpenQuestion(context.database, roomId);
      expect((await call(skip, { url: "/x", method: "POST", params: { roomId, broadcastId: reopened.id } })).status).toBe(403);
      expect((await call(skip, { url: "/x", method: "POST", params: { roomId, broadcastId: reopened.id }, cookie })).status).toBe(200);
      expect(await second).toEqual({ status: "skipped", responses: [] });
      const [row] = await context.database.db.select().from(broadcasts).where(eq(broadcasts.id, reopened.id));
      expect(row!.status).toBe("skipped");
    } finally {
      await deps.stop();
    }
  });

  it("replays a retried answer or skip with the same Idempotency-Key, and refuses the key for any other change with 409", async () => {
    const { roomId } = await createTestRoom(context.database.db, { broadcast: "human", broadcast_timeout: 60 });
    const cookie = await seated(roomId);
    const openQuestion = () =>
      leaveQuestion(context.database, roomId, "songwriter", { mode: "human", status: "open", deadlineAt: new Date(Date.now() + 60_000) });
    const keyed = (broadcastId: string, key: string) => ({
      url: "/x",
      method: "POST",
      params: { roomId, broadcastId },
      cookie,
      headers: { "idempotency-key": key },
    });
    const lastSeq = async () => (await context.database.db.select({ seq: rooms.lastSeq }).from(rooms).where(eq(rooms.id, roomId)))[0]!.seq;
    const refusal = (response: { status: number; body: { error: { message: string } } }) => [response.status, response.body.error.message];

    const asked = await openQuestion();
    const given = await call(answer, { ...keyed(asked.id, "answer-1"), body: { answer: "Rain" } });
    expect(given.status).toBe(201);
    const afterAnswer = await lastSeq();
    const retried = await call(answer, { ...keyed(asked.id, "answer-1"), body: { answer: "Rain" } });
    expect(retried.status).toBe(201);
    expect(retried.body).toEqual(given.body);
    expect(refusal(await call(answer, { ...keyed(asked.id, "answer-1"), body: { answer: "Sun" } }))).toEqual([
      409,
      'Idempotency-Key "answer-1" was already used for a different change (broadcast.response); send a new key for a new change.',
    ]);
    expect(refusal(await call(skip, keyed(asked.id, "answer-1")))).toEqual([
      409,
      'Idempotency-Key "answer-1" was already used for a different change (broadcast.response); send a new key for a new change.',
    ]);

    const next = await openQuestion();
    expect(refusal(await call(answer, { ...keyed(next.id, "answer-1"), body: { answer: "Rain" } }))[0]).toBe(409);
    expect(await lastSeq()).toBe(afterAnswer);
    const skipped = await call(skip, keyed(next.id, "skip-1"));
    expect(skipped).toMatchObject({ status: 200, body: { broadcastId: next.id, status: "skipped" } });
    const afterSkip = await lastSeq();
    const skippedAgain = await call(skip, keyed(next.id, "skip-1"));
    expect(skippedAgain).toMatchObject({ status: 200, body: skipped.body });
    expect(refusal(await call(answer, { ...keyed(next.id, "skip-1"), body: { answer: "Rain" } }))).toEqual([
      409,
      'Idempotency-Key "skip-1" was already used for a different change (broadcast.closed); send a new key for a new change.',
    ]);

    const third = await openQuestion();
    const tooLong = await call(answer, { ...keyed(third.id, "k".repeat(129)), body: { answer: "Rain" } });
    expect(refusal(tooLong)).toEqual([400, "Idempotency-Key is limited to 128 characters."]);
    expect(await broadcastStatus(context.database, third.id)).toBe("open");
    expect(await lastSeq()).toBe(afterSkip);
    const answers = await context.database.db.select().from(broadcastResponses).where(eq(broadcastResponses.roomId, roomId));
    expect(answers.map((row) => [row.broadcastId, row.content])).toEqual([[asked.id, "Rain"]]);
    expect(await broadcastStatus(context.database, asked.id)).toBe("complete");
    expect(await broadcastStatus(context.database, next.id)).toBe("skipped");
  });
});
