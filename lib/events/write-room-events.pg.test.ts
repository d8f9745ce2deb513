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
  it("takes two round trips, with or without an idempotency key, and a retry takes two as well", async () => {
    const { roomId, agents } = await createTestRoom(database.db);
    const agent = { kind: "agent" as const, id: agents[0]!.id, name: agents[0]!.name };
    await overSlowNetwork(database.url!, 60, async (db, roundTrips) => {
      // Open the pool's connections and prepare the statements on both first: each kind of
      // write twice at once, so that each of the pool's two connections runs one (one after
      // the other could land on the same connection and leave the other unprepared).
      const warm = (key?: string) => createNode(db, roomId, alice, { text: "warm", x: 0, y: 0 }, { idempotencyKey: key });
      await Promise.all([warm(), warm()]);
      await Promise.all([warm("warm-1"), warm("warm-2")]);
      // BEGIN + room lock; the note, the counter, the event and the notification + COMMIT.
      const unkeyed = await roundTrips(() => createNode(db, roomId, alice, { text: "no key", x: 0, y: 0 }));
      // The key lookup rides with BEGIN and the lock.
      let first: unknown;
      const keyed = () => createNode(db, roomId, alice, { text: "keyed", x: 0, y: 0 }, { idempotencyKey: "browser-1" });
      const withKey = await roundTrips(async () => (first = await keyed()));
      let retried: unknown;
      const retry = await roundTrips(async () => (retried = await keyed()));
      // An agent's node is placed among the room's nodes, read right behind the lock.
      const agentNote = () => createNode(db, roomId, agent, { text: "placed", x: 0, y: 0 }, { idempotencyKey: `agent-${Math.random()}` });
      await Promise.all([agentNote(), agentNote()]);
      const placed = await roundTrips(agentNote);
      expect({ unkeyed, withKey, retry, placed }).toEqual({ unkeyed: 2, withKey: 2, retry: 2, placed: 2 });
      expect(retried).toEqual(first);
    });
    const texts = (await readEventsAfter(database.db, roomId, 1)).map((event) => (event.payload as { node: { text: string } }).node.text);
    expect(texts).toEqual(["warm", "warm", "warm", "warm", "no key", "keyed", "placed", "placed", "placed"]);
  });
});
