import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db";
import { createNode } from "@/lib/canvas/create-node";
import type { RoomEvent } from "@/lib/protocol";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { RoomBus } from "./bus";

let database: TestDatabase;
let secondConnection: Database;
let busA: RoomBus;
let busB: RoomBus;

beforeAll(async () => {
  database = await createTestDatabase();
  secondConnection = await database.connectAgain();
  busA = new RoomBus(database);
  busB = new RoomBus(secondConnection);
  await Promise.all([busA.start(), busB.start()]);
});
afterAll(async () => {
  await Promise.all([busA.stop(), busB.stop()]);
  await database.destroy();
});

describe("RoomBus across instances (PostgreSQL)", () => {
  it("delivers an event written through either connection on both buses", async () => {
    const { roomId } = await createTestRoom(database.db);
    const seenByA: RoomEvent[] = [];
    const seenByB: RoomEvent[] = [];
    const relevant = ["node.created", "presence"];
    busA.subscribe(roomId, (d) => d.kind === "event" && relevant.includes(d.event.type) && seenByA.push(d.event));
    busB.subscribe(roomId, (d) => d.kind === "event" && relevant.includes(d.event.type) && seenByB.push(d.event));

    await createNode(database.db, roomId, alice, { text: "from instance A", x: 0, y: 0 });
    await createNode(secondConnection.db, roomId, alice, { text: "from instance B", x: 0, y: 0 });

    const texts = (events: RoomEvent[]) =>
      events.filter((event) => event.type === "node.created").map((event) => (event.payload as { node: { text: string } }).node.text);
    await eventually(() => expect(texts(seenByA)).toEqual(["from instance A", "from instance B"]));
    await eventually(() => expect(texts(seenByB)).toEqual(["from instance A", "from instance B"]));

    await busB.publishEphemeral({ type: "presence", room_id: roomId, payload: { watching: 2, participants: 0 } });
    await eventually(() => expect(seenByA.some((event) => event.type === "presence")).toBe(true));
  });
});
