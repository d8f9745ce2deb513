import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boardEntries } from "@/db/schema";
import { loadPromptContext } from "@/lib/agents/load-prompt-context";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { agentByPersona } from "@/test/agents";
import { createTestRoom } from "@/test/fixtures";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { runs } from "@/db/schema";
import { postBoardEntry } from "./post-entry";
import { openRequestsFor, readBoard } from "./read-board";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

const author = { id: "agent-x", name: "Songwriter", agentId: null, runId: null };

async function post(roomId: string, kind: "intention" | "request" | "reaction" | "theme", content: unknown, at: Date, expiryMinutes = 60) {
  const { result } = await writeRoomEvents(database.db, roomId, (tx, emit) =>
    postBoardEntry(tx, emit, { roomId, kind, content, author, expiryMinutes, at }),
  );
  return result!;
}

describe("the shared context board", () => {
  it("never serves expired entries and prunes them on read", async () => {
    const { roomId } = await createTestRoom(database.db);
    const start = new Date("2026-01-01T10:00:00Z");
    const old = await post(roomId, "intention", { plan: "An old plan" }, start);
    const fresh = await post(roomId, "intention", { plan: "A fresh plan" }, new Date(start.getTime() + 50 * 60_000));
    const request = await post(roomId, "request", { targetPersona: "scene-painter", ask: "Paint the old verse", refNodeIds: [] }, start);

    const at30 = await readBoard(database.db, roomId, { now: new Date(start.getTime() + 30 * 60_000) });
    expect(at30.map((entry) => entry.id).sort()).toEqual([old.id, fresh.id, request.id].sort());

    const at61 = new Date(start.getTime() + 61 * 60_000);
    const served = await readBoard(database.db, roomId, { now: at61 });
    expect(served.map((entry) => entry.id)).toEqual([fresh.id]);
    const stored = await database.db.select().from(boardEntries).where(eq(boardEntries.roomId, roomId));
    expect(stored.map((entry) => entry.id)).toEqual([fresh.id]);
    expect(await openRequestsFor(database.db, roomId, "scene-painter", { now: at61 })).toHaveLength(0);
  });

  it("leaves expired entries out of an agent's prompt", async () => {
    const { roomId } = await createTestRoom(database.db);
    const painter = await agentByPersona(database, roomId, "scene-painter");
    const start = new Date(Date.now() - 2 * 60 * 60_000);
    await post(roomId, "theme", { mood: "stale mood", palette: [], keywords: [] }, start);
    await post(roomId, "intention", { plan: "Still relevant" }, new Date());
    const run = await startAgentRun(database.db, roomId, { agentId: painter.id, prompt: "Paint" }, { id: "human:x", name: "X" });
    const [row] = await database.db.select().from(runs).where(eq(runs.id, run.id));
    const context = await loadPromptContext(database.db, {
      run: row!,
      agent: painter,
      team: [painter],
      settings: parseRoomSettings({}),
      now: new Date(),
      toolNames: [],
      notes: { roomId, agentId: painter.id, agentName: painter.name, runId: run.id, step: 0 },
    });
    expect(context.board.map((entry) => entry.content)).toEqual([{ plan: "Still relevant" }]);
  });

  it("validates content per kind and links reactions to entries of the same room", async () => {
    const { roomId } = await createTestRoom(database.db);
    const { roomId: elsewhere } = await createTestRoom(database.db);
    const at = new Date();
    await expect(post(roomId, "theme", { mood: "", palette: ["blue"] }, at)).rejects.toMatchObject({ status: 400 });
    await expect(post(roomId, "intention", { plan: "x", extra: true }, at)).rejects.toThrow(/extra/);
    const foreign = await post(elsewhere, "intention", { plan: "Not yours" }, at);
    await expect(post(roomId, "reaction", { toEntryId: foreign.id, response: "Nice" }, at)).rejects.toThrow(/no board entry/);
    const own = await post(roomId, "intention", { plan: "Mine" }, at);
    const reaction = await post(roomId, "reaction", { toEntryId: own.id, response: "Building on it" }, at);
    expect(reaction.answersEntryId).toBe(own.id);
    expect((await readBoard(database.db, roomId, { now: at })).map((entry) => entry.kind)).toEqual(["reaction", "intention"]);
  });
});
