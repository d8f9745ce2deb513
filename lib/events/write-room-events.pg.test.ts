import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNode } from "@/lib/canvas/create-node";
import { overSlowNetwork } from "@/test/slow-network";
import { alice, createTestRoom } from "@/test/fixtures";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { readEventsAfter } from "./read-events";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

describe("a note's write on PostgreSQL", () => {
  it("takes one round trip, with or without an idempotency key; a retry and a placed note take two", async () => {
    const { roomId, agents } = await createTestRoom(database.db);
    const agent = { kind: "agent" as const, id: agents[0]!.id, name: agents[0]!.name };
    await overSlowNetwork(database.url!, 60, async (db, roundTrips) => {
      // Open the pool's connections and prepare the statements on both first: each kind of
      // write twice at once, so that each of the pool's two connections runs one (one after
      // the other could land on the same connection and leave the other unprepared).
      const warm = (key?: string) => createNode(db, roomId, alice, { text: "warm", x: 0, y: 0 }, { idempotencyKey: key });
      await Promise.all([warm(), warm()]);
      await Promise.all([warm("warm-1"), warm("warm-2")]);
      await Promise.all([warm("warm-1"), warm("warm-2")]);
      // BEGIN + the note, the counter, the event and the notification + COMMIT.
      const unkeyed = await roundTrips(() => createNode(db, roomId, alice, { text: "no key", x: 0, y: 0 }));
      // The key is checked by the unique index, in the same statement.
      let first: unknown;
      const keyed = () => createNode(db, roomId, alice, { text: "keyed", x: 0, y: 0 }, { idempotencyKey: "browser-1" });
      const withKey = await roundTrips(async () => (first = await keyed()));
      let retried: unknown;
      const retry = await roundTrips(async () => (retried = await keyed()));
      // The retry is refused by the unique index and reads the original: two.
      // An agent's node is placed among the room's nodes, read with BEGIN before the write.
      const agentNote = () => createNode(db, roomId, agent, { text: "placed", x: 0, y: 0 }, { idempotencyKey: `agent-${Math.random()}` });
      await Promise.all([agentNote(), agentNote()]);
      const placed = await roundTrips(agentNote);
      expect({ unkeyed, withKey, retry, placed }).toEqual({ unkeyed: 1, withKey: 1, retry: 2, placed: 2 });
      expect(retried).toEqual(first);
    });
    const texts = (await readEventsAfter(database.db, roomId, 1)).map((event) => (event.payload as { node: { text: string } }).node.text);
    expect(texts).toEqual(["warm", "warm", "warm", "warm", "no key", "keyed", "placed", "placed", "placed"]);
  });
});
