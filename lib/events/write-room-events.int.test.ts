import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canvasEdges, canvasNodes, events } from "@/db/schema";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { createNode } from "@/lib/canvas/create-node";
import { updateNode } from "@/lib/canvas/update-node";
import { createEdge, deleteEdge, updateEdge } from "@/lib/canvas/edges";
import { storedEventSchema } from "@/lib/protocol";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { alice, createTestRoom } from "@/test/fixtures";
import { readEventsAfter } from "./read-events";
import { appendEvents, writeRoomEvents } from "./write-room-events";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

describe("writeRoomEvents", () => {
  it("stores valid protocol messages and replays exactly those after a sequence number", async () => {
    const { roomId } = await createTestRoom(database.db);
    for (let index = 0; index < 5; index++) {
      await createNode(database.db, roomId, alice, { text: `note ${index}`, x: index * 10, y: 0 });
    }
    const all = await readEventsAfter(database.db, roomId, 0);
    expect(all.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(all[0]!.type).toBe("room.created");
    for (const event of all) expect(storedEventSchema.safeParse(event).success).toBe(true);

    const after3 = await readEventsAfter(database.db, roomId, 3);
    expect(after3.map((event) => event.seq)).toEqual([4, 5, 6]);
    expect(after3.map((event) => (event.payload as { node: { text: string } }).node.text)).toEqual(["note 2", "note 3", "note 4"]);
  });

  it("keeps the sequence gapless and in commit order under 50 concurrent writers", async () => {
    const { roomId } = await createTestRoom(database.db);
    const writes = Array.from({ length: 50 }, (_, index) =>
      createNode(database.db, roomId, alice, { text: `concurrent ${index}`, x: index, y: index }),
    );
    const nodes = await Promise.all(writes);
    expect(new Set(nodes.map((node) => node.id)).size).toBe(50);

    const stored = await database.db
      .select({ seq: events.seq, createdAt: events.createdAt, type: events.type })
      .from(events)
      .where(eq(events.roomId, roomId))
      .orderBy(events.seq);
    expect(stored.map((row) => row.seq)).toEqual(Array.from({ length: 51 }, (_, index) => index + 1));
    for (let index = 1; index < stored.length; index++) {
      expect(stored[index]!.createdAt.getTime()).toBeGreaterThanOrEqual(stored[index - 1]!.createdAt.getTime());
    }
    const replayed = await readEventsAfter(database.db, roomId, 0);
    expect(replayed.filter((event) => event.type === "node.created")).toHaveLength(50);
  });

  it("turns a retried write with the same idempotency key into a no-op returning the original event", async () => {
    const { roomId } = await createTestRoom(database.db);
    const input = { text: "only once", x: 1, y: 2 };
    const [first, second] = await Promise.all([
      createNode(database.db, roomId, alice, input, { idempotencyKey: "retry-1" }),
      createNode(database.db, roomId, alice, input, { idempotencyKey: "retry-1" }),
    ]);
    const third = await createNode(database.db, roomId, alice, input, { idempotencyKey: "retry-1" });
    expect(second.id).toBe(first.id);
    expect(third.id).toBe(first.id);

    const rows = await database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId));
    expect(rows).toHaveLength(1);
    const created = (await readEventsAfter(database.db, roomId, 0)).filter((event) => event.type === "node.created");
    expect(created).toHaveLength(1);

    const other = await createNode(database.db, roomId, alice, input, { idempotencyKey: "retry-2" });
    expect(other.id).not.toBe(first.id);
  });

  it("refuses a key reused for another edge or another agent's run with 409, and still replays the same change", async () => {
    const { roomId, agents } = await createTestRoom(database.db);
    const [a, b] = await Promise.all([0, 1].map((x) => createNode(database.db, roomId, alice, { text: "n", x, y: 0 })));
    const first = await createEdge(database.db, roomId, alice, { sourceId: a!.id, targetId: b!.id }, { idempotencyKey: "edge" });
    const second = await createEdge(database.db, roomId, alice, { sourceId: b!.id, targetId: a!.id });
    await updateEdge(database.db, roomId, second.id, alice, { label: "echoes" }, { idempotencyKey: "label" });
    const run = await startAgentRun(database.db, roomId, { agentId: agents[0]!.id }, alice, { idempotencyKey: "run" });
    const seq = (await readEventsAfter(database.db, roomId, 0)).length;

    const refused = { status: 409, message: expect.stringMatching(/was already used for a different change/) };
    await expect(updateEdge(database.db, roomId, first.id, alice, { label: "x" }, { idempotencyKey: "edge" })).rejects.toMatchObject(
      refused,
    );
    await expect(updateEdge(database.db, roomId, first.id, alice, { label: "x" }, { idempotencyKey: "label" })).rejects.toMatchObject(
      refused,
    );
    await expect(deleteEdge(database.db, roomId, second.id, alice, { idempotencyKey: "label" })).rejects.toMatchObject(refused);
    await expect(startAgentRun(database.db, roomId, { agentId: agents[1]!.id }, alice, { idempotencyKey: "run" })).rejects.toMatchObject(
      refused,
    );

    expect(await updateEdge(database.db, roomId, second.id, alice, { label: "echoes" }, { idempotencyKey: "label" })).toEqual({
      edgeId: second.id,
      label: "echoes",
    });
    expect((await startAgentRun(database.db, roomId, { agentId: agents[0]!.id }, alice, { idempotencyKey: "run" })).id).toBe(run.id);
    expect((await readEventsAfter(database.db, roomId, 0)).length).toBe(seq);
    const edges = await database.db.select().from(canvasEdges).where(eq(canvasEdges.roomId, roomId));
    expect(Object.fromEntries(edges.map((edge) => [edge.id, edge.label]))).toEqual({ [first.id]: "", [second.id]: "echoes" });
  });

  it("refuses a key reused for another request, or by someone else, with 409 and writes nothing", async () => {
    const { roomId } = await createTestRoom(database.db);
    const ben = { ...alice, id: "human:ben", name: "Ben" };
    const note = await createNode(database.db, roomId, alice, { text: "one", x: 0, y: 0 }, { idempotencyKey: "note" });
    const before = await readEventsAfter(database.db, roomId, 0);
    const refused = { status: 409, message: expect.stringMatching(/already used for a different change/) };
    await expect(createNode(database.db, roomId, alice, { text: "two", x: 0, y: 0 }, { idempotencyKey: "note" })).rejects.toMatchObject(
      refused,
    );
    await expect(createNode(database.db, roomId, ben, { text: "one", x: 0, y: 0 }, { idempotencyKey: "note" })).rejects.toMatchObject(
      refused,
    );
    await updateNode(database.db, roomId, note.id, alice, { text: "edited" }, { idempotencyKey: "edit" });
    await expect(
      updateNode(database.db, roomId, note.id, alice, { text: "edited again" }, { idempotencyKey: "edit" }),
    ).rejects.toMatchObject(refused);
    // The same request again is still a retry, whatever order its fields come in.
    expect(await createNode(database.db, roomId, alice, { y: 0, x: 0, text: "one" }, { idempotencyKey: "note" })).toEqual(note);
    expect((await readEventsAfter(database.db, roomId, 0)).length).toBe(before.length + 1);
    const [row] = await database.db.select().from(canvasNodes).where(eq(canvasNodes.id, note.id));
    expect(row!.text).toBe("edited");
  });

  it("will not take an idempotency key without the change it names (checked by the type checker)", async () => {
    const { roomId } = await createTestRoom(database.db);
    const key: string | undefined = "typed";
    const work = async () => undefined;
    // @ts-expect-error — a key without `change` could replay another change instead of refusing it
    const unnamed = await writeRoomEvents(database.db, roomId, work, { idempotencyKey: key });
    const named = await writeRoomEvents(database.db, roomId, work, { idempotencyKey: key, change: { type: "node.created" } });
    const unkeyed = await writeRoomEvents(database.db, roomId, work, {});
    expect([unnamed, named, unkeyed].map((write) => write.events)).toEqual([[], [], []]);
  });

  it("uses the same idempotency key independently in different rooms", async () => {
    const a = await createTestRoom(database.db);
    const b = await createTestRoom(database.db);
    const inA = await createNode(database.db, a.roomId, alice, { text: "a", x: 0, y: 0 }, { idempotencyKey: "k" });
    const inB = await createNode(database.db, b.roomId, alice, { text: "b", x: 0, y: 0 }, { idempotencyKey: "k" });
    expect(inA.id).not.toBe(inB.id);
  });

  it("writes nothing when the work fails: no domain row, no event, no sequence number used", async () => {
    const { roomId } = await createTestRoom(database.db);
    await expect(
      writeRoomEvents(database.db, roomId, async (tx, emit) => {
        await tx.insert(canvasNodes).values({
          id: "doomed",
          roomId,
          text: "half written",
          x: 0,
          y: 0,
          authorKind: "human",
          authorId: alice.id,
          authorName: alice.name,
        });
        emit({ type: "node.deleted", actor: alice, payload: { nodeId: "doomed", edgeIds: [] } });
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await database.db.select().from(canvasNodes).where(eq(canvasNodes.id, "doomed"))).toHaveLength(0);
    const [next] = await appendEvents(database.db, roomId, [
      { type: "seat.taken", actor: alice, payload: { seatId: "s", displayName: "Alice" } },
    ]);
    expect(next!.seq).toBe(2);
  });

  it("refuses an event whose payload does not match the catalogue", async () => {
    const { roomId } = await createTestRoom(database.db);
    await expect(
      appendEvents(database.db, roomId, [
        // @ts-expect-error -- deliberately not what the catalogue says: the write must refuse it
        { type: "edge.deleted", actor: alice, payload: { edgeId: 42 } },
      ]),
    ).rejects.toThrow();
    expect(await readEventsAfter(database.db, roomId, 1)).toHaveLength(0);
  });

  it("rejects writes to a room that does not exist", async () => {
    await expect(
      appendEvents(database.db, "no-such-room", [{ type: "seat.taken", actor: alice, payload: { seatId: "s", displayName: "A" } }]),
    ).rejects.toMatchObject({ status: 404 });
  });

  it("makes deferred changes in the statement that stores the events, and keeps nothing when one fails", async () => {
    const { roomId } = await createTestRoom(database.db);
    const created = await createNode(database.db, roomId, alice, { text: "deferred", x: 1, y: 2 });
    const [row] = await database.db.select().from(canvasNodes).where(eq(canvasNodes.id, created.id));
    expect(row).toMatchObject({ text: "deferred", x: 1, y: 2, authorName: "Alice", version: 1 });
    expect(row!.createdAt.toISOString()).toBe(created.createdAt);

    const before = await readEventsAfter(database.db, roomId, 0);
    const duplicate = { ...row!, text: "same id again" };
    await expect(
      writeRoomEvents(database.db, roomId, async (tx, emit, _at, defer) => {
        defer(tx.insert(canvasNodes).values({ ...row!, id: "fresh-node", text: "would be kept" }));
        defer(tx.insert(canvasNodes).values(duplicate));
        emit({ type: "room.updated", actor: alice, payload: { title: "never" } });
      }),
    ).rejects.toThrow();
    expect(await readEventsAfter(database.db, roomId, 0)).toEqual(before);
    expect(await database.db.select().from(canvasNodes).where(eq(canvasNodes.id, "fresh-node"))).toEqual([]);
    expect((await database.db.select().from(canvasNodes).where(eq(canvasNodes.id, created.id)))[0]!.text).toBe("deferred");
  });

  it("makes deferred changes even when the write emits no event", async () => {
    const { roomId } = await createTestRoom(database.db);
    const created = await createNode(database.db, roomId, alice, { text: "quiet", x: 0, y: 0 });
    const before = await readEventsAfter(database.db, roomId, 0);
    await writeRoomEvents(database.db, roomId, async (tx, _emit, _at, defer) => {
      defer(tx.update(canvasNodes).set({ text: "quietly changed" }).where(eq(canvasNodes.id, created.id)));
    });
    expect((await database.db.select().from(canvasNodes).where(eq(canvasNodes.id, created.id)))[0]!.text).toBe("quietly changed");
    expect(await readEventsAfter(database.db, roomId, 0)).toEqual(before);
  });
});
