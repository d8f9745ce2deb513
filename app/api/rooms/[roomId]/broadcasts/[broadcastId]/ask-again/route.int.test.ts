import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { broadcasts, rooms } from "@/db/schema";
import { answerHumanQuestion } from "@/lib/broadcast/answer-question";
import { askOthers } from "@/lib/broadcast/ask-others";
import { agentByPersona } from "@/test/agents";
import { latencyResolver, testSeat, waitForOpenQuestion } from "@/test/broadcasts";
import { createTestRoom } from "@/test/fixtures";
import { call, cookieFrom } from "@/test/http";
import { useTestRuntime } from "@/test/test-runtime";
import { POST as takeSeat } from "../../../seat/route";
import { POST } from "./route";

const context = useTestRuntime();

/** A room where the Songwriter's question was answered and the Scene Painter's same question got that answer. */
async function roomWithReusedQuestion() {
  const { roomId } = await createTestRoom(context.database.db, { broadcast: "human", broadcast_timeout: 30 });
  const deps = { database: context.database, bus: context.runtime.bus, resolveModel: latencyResolver, pollMs: 100 };
  const ask = async (persona: string) =>
    askOthers(deps, {
      roomId,
      asker: await agentByPersona(context.database, roomId, persona),
      runId: null,
      correlationId: `c-${persona}`,
      question: "Should the chorus repeat twice?",
    });
  const asked = ask("songwriter");
  const open = await waitForOpenQuestion(context.database, roomId);
  await answerHumanQuestion(context.database.db, roomId, open.id, await testSeat(context.database, roomId, "Tess"), "Yes");
  await asked;
  expect(await ask("scene-painter")).toMatchObject({ status: "reused" });
  const [reused] = await context.database.db
    .select()
    .from(broadcasts)
    .where(and(eq(broadcasts.roomId, roomId), eq(broadcasts.status, "reused")));
  const seat = await call(takeSeat, { url: "/x", method: "POST", params: { roomId }, body: { displayName: "Ada" } });
  return { roomId, answered: open, reused: reused!, cookie: cookieFrom(seat.headers.get("set-cookie")) };
}

const askAgain = (roomId: string, broadcastId: string, options: { cookie?: string; body?: unknown; key?: string } = {}) =>
  call(POST, {
    url: "/x",
    method: "POST",
    params: { roomId, broadcastId },
    body: options.body,
    cookie: options.cookie,
    headers: options.key ? { "idempotency-key": options.key } : {},
  });

async function lastSeq(roomId: string) {
  const [room] = await context.database.db.select({ lastSeq: rooms.lastSeq }).from(rooms).where(eq(rooms.id, roomId));
  return room!.lastSeq;
}

describe("POST /api/rooms/[roomId]/broadcasts/[broadcastId]/ask-again", () => {
  it("puts a question that got an earlier answer to the room, once; a retry with its key gets the same question", async () => {
    const { roomId, reused, cookie } = await roomWithReusedQuestion();
    const asked = await askAgain(roomId, reused.id, { cookie, key: "again-1" });
    expect(asked.status).toBe(201);
    expect(asked.body.broadcast).toMatchObject({
      question: "Should the chorus repeat twice?",
      agentId: reused.agentId,
      askedAgainOf: reused.id,
    });
    const open = await waitForOpenQuestion(context.database, roomId);
    expect(open.id).toBe(asked.body.broadcast.id);

    const retried = await askAgain(roomId, reused.id, { cookie, key: "again-1" });
    expect(retried.status).toBe(201);
    expect(retried.body.broadcast.id).toBe(asked.body.broadcast.id);
    const twice = await askAgain(roomId, reused.id, { cookie, key: "again-2" });
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toBe("This question has already been put to the room again.");
    const questions = await context.database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId));
    expect(questions.filter((question) => question.askedAgainOf === reused.id)).toHaveLength(1);
  });

  it("refuses, changing nothing, a spectator, a question put to the room, one that does not exist, and a body", async () => {
    const { roomId, answered, reused, cookie } = await roomWithReusedQuestion();
    const before = await lastSeq(roomId);

    const spectator = await askAgain(roomId, reused.id);
    expect(spectator.status).toBe(403);
    const putToRoom = await askAgain(roomId, answered.id, { cookie });
    expect(putToRoom.status).toBe(409);
    expect(putToRoom.body.error.message).toMatch(/^Only a question that was given an earlier answer can be asked again/);
    const missing = await askAgain(roomId, "no-such-question", { cookie });
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe("Question no-such-question not found.");
    const withBody = await askAgain(roomId, reused.id, { cookie, body: { question: "Something else?" } });
    expect(withBody.status).toBe(400);

    expect(await lastSeq(roomId)).toBe(before);
    const questions = await context.database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId));
    expect(questions.map((question) => question.status).sort()).toEqual(["complete", "reused"]);
  });
});
