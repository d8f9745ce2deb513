import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, agents, runs } from "@/db/schema";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { postBoardEntry } from "@/lib/board/post-entry";
import { readEventsAfter } from "@/lib/events/read-events";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import type { RoomSettingsPatch } from "@/lib/rooms/room-settings";
import { activeRun } from "@/test/active-run";
import { alice, createTestRoom } from "@/test/fixtures";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { createBoardTools } from "./board-tools";
import { createRequestTools } from "./request-agent";
import { toolCallKey } from "./tool-call-key";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

const call = { toolCallId: "call-1", messages: [], context: {} };

/** A room with a queued run of its songwriter, and how to build an attempt of that run. */
async function songwriterRun(settings: RoomSettingsPatch = {}) {
  const { roomId } = await createTestRoom(database.db, settings);
  const team = await database.db.select().from(agents).where(eq(agents.roomId, roomId));
  const songwriter = team.find((agent) => agent.persona === "songwriter")!;
  const started = await startAgentRun(database.db, roomId, { agentId: songwriter.id, prompt: "Write a verse." }, alice);
  const [run] = await database.db.select().from(runs).where(eq(runs.id, started.id));
  const attempt = () => activeRun(database, { run: run!, agent: songwriter, team });
  return { roomId, run: run!, songwriter, team, attempt };
}

const requestsIn = async (roomId: string) =>
  (await readEventsAfter(database.db, roomId, 0)).filter(
    (event) => event.type === "board.posted" && event.payload.entry.kind === "request",
  );
const runsAnswering = (roomId: string, agent: Agent) =>
  database.db
    .select()
    .from(runs)
    .where(and(eq(runs.roomId, roomId), eq(runs.agentId, agent.id)));

describe("a tool call taken again with the same idempotency key", () => {
  it("gets the original result without spending the run's allowance or queuing a second run", async () => {
    const { roomId, team, attempt } = await songwriterRun();
    const painter = team.find((agent) => agent.persona === "scene-painter")!;
    const input = { targetPersona: "scene-painter", prompt: "Paint the rain.", refNodeIds: [] };

    const first = await createRequestTools(attempt()).request_agent.execute!(input, call);
    // The worker died before the step was saved: the next attempt takes the step again.
    const again = attempt();
    const retried = await createRequestTools(again).request_agent.execute!(input, call);

    expect(first).toMatchObject({ ok: true, status: "queued" });
    expect(retried).toMatchObject({
      ok: true,
      requestId: (first as { requestId: string }).requestId,
      runId: (first as { runId: string }).runId,
    });
    expect(again.state.requestsMade).toBe(0);
    expect(await requestsIn(roomId)).toHaveLength(1);
    expect(await runsAnswering(roomId, painter)).toHaveLength(1);

    // A request shared on the board is looked up the same way before it is reserved.
    const shared = { entryType: "request" as const, content: { targetPersona: "storyteller", ask: "Tell it.", refNodeIds: [] } };
    const board = await createBoardTools(attempt()).share_creative_context.execute!(shared, call);
    const boardAgain = attempt();
    expect(await createBoardTools(boardAgain).share_creative_context.execute!(shared, call)).toEqual(board);
    expect(boardAgain.state.requestsMade).toBe(0);
    expect(await requestsIn(roomId)).toHaveLength(2);
  });

  it("reports a help request's status as the first call did, until the helper's run can start", async () => {
    // The room has one slot, which the asking run holds: the helper's run waits for it.
    const { roomId, run, team, attempt } = await songwriterRun({ max_concurrent_runs: 1 });
    const painter = team.find((agent) => agent.persona === "scene-painter")!;
    const holdSlot = sql`now() + interval '1 minute'`;
    await database.db.update(runs).set({ status: "running", leaseOwner: "a worker", leaseExpiresAt: holdSlot }).where(eq(runs.id, run.id));
    const input = { target: "scene-painter", question: "Where does the song begin?" };

    const first = await createRequestTools(attempt()).request_help.execute!(input, call);
    expect(first).toMatchObject({ ok: true, helpId: expect.any(String), status: "queued" });
    expect(await createRequestTools(attempt()).request_help.execute!(input, call)).toEqual(first);

    // The slot is free again: the helper's run starts at once, and has started soon after.
    await database.db.update(runs).set({ status: "succeeded", leaseOwner: null, leaseExpiresAt: null }).where(eq(runs.id, run.id));
    expect(await createRequestTools(attempt()).request_help.execute!(input, call)).toEqual({ ...first, status: "started" });
    const [helper] = await runsAnswering(roomId, painter);
    await database.db
      .update(runs)
      .set({ status: "running", startedAt: new Date(), leaseOwner: "a worker", leaseExpiresAt: holdSlot })
      .where(eq(runs.id, helper!.id));
    expect(await createRequestTools(attempt()).request_help.execute!(input, call)).toEqual({ ...first, status: "started" });
    expect(await requestsIn(roomId)).toHaveLength(1);
    expect(await runsAnswering(roomId, painter)).toHaveLength(1);
  });

  it("reports a help request that started at once as started when the call is taken again", async () => {
    const { run, attempt } = await songwriterRun({ max_concurrent_runs: 2 });
    await database.db
      .update(runs)
      .set({ status: "running", leaseOwner: "a worker", leaseExpiresAt: sql`now() + interval '1 minute'` })
      .where(eq(runs.id, run.id));
    const input = { target: "scene-painter", question: "Where does the song begin?" };
    // No worker is about here: the helper's run is still queued when the call is taken again.
    const first = await createRequestTools(attempt()).request_help.execute!(input, call);
    expect(first).toMatchObject({ ok: true, status: "started" });
    expect(await createRequestTools(attempt()).request_help.execute!(input, call)).toEqual(first);
  });

  it("is refused when the key was used for a different change, and spends and writes nothing", async () => {
    const { roomId, run, songwriter, team, attempt } = await songwriterRun();
    const painter = team.find((agent) => agent.persona === "scene-painter")!;
    const input = { targetPersona: "scene-painter", prompt: "Paint the rain.", refNodeIds: [] };
    // Another request of the same kind was stored under the key this call will have.
    const key = toolCallKey(attempt(), "request_agent", input);
    await writeRoomEvents(
      database.db,
      roomId,
      (tx, emit, at) =>
        postBoardEntry(tx, emit, {
          roomId,
          kind: "request",
          content: { targetPersona: "storyteller", ask: "Tell it.", refNodeIds: [] },
          author: { id: songwriter.id, name: songwriter.name, agentId: songwriter.id, runId: run.id },
          expiryMinutes: 60,
          correlationId: run.correlationId,
          at,
        }),
      { idempotencyKey: key, change: { type: "board.posted", request: { by: songwriter.id, something: "else" } } },
    );
    const before = await readEventsAfter(database.db, roomId, 0);

    const active = attempt();
    const refused = await createRequestTools(active).request_agent.execute!(input, call);

    expect(refused).toEqual({ ok: false, error: expect.stringMatching(/already used for a different change/) });
    expect(active.state.requestsMade).toBe(0);
    expect(await readEventsAfter(database.db, roomId, 0)).toEqual(before);
    expect(await runsAnswering(roomId, painter)).toHaveLength(0);
  });
});
