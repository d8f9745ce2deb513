import { describe, expect, it } from "vitest";
import { createNode } from "@/lib/canvas/create-node";
import type { RoomEvent } from "@/lib/protocol";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { useTestBus } from "@/test/test-runtime";

const context = useTestBus();

/** Collects events of the given types (a room's own `room.created` may still be in flight). */
function collect(roomId: string, types = ["node.created", "presence"]) {
  const received: RoomEvent[] = [];
  const unsubscribe = context.bus.subscribe(roomId, (delivery) => {
    if (delivery.kind === "event" && types.includes(delivery.event.type)) received.push(delivery.event);
  });
  return { received, unsubscribe };
}

describe("RoomBus", () => {
  it("delivers committed events of a room to its subscribers in sequence order", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const { roomId: otherRoom } = await createTestRoom(context.database.db);
    const { received, unsubscribe } = collect(roomId);
    await Promise.all(
      Array.from({ length: 10 }, (_, index) => createNode(context.database.db, roomId, alice, { text: `n${index}`, x: 0, y: 0 })),
    );
    await createNode(context.database.db, otherRoom, alice, { text: "elsewhere", x: 0, y: 0 });
    await eventually(() => expect(received).toHaveLength(10));
    expect(received.map((event) => ("seq" in event ? event.seq : 0))).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    unsubscribe();
  });

  it("reads events too large for a notification back from the table", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const { received, unsubscribe } = collect(roomId);
    const big = "x".repeat(1900);
    const nodes = await Promise.all(
      [0, 1, 2, 3, 4].map((index) => createNode(context.database.db, roomId, alice, { text: `${index}${big}`, x: 0, y: 0 })),
    );
    await eventually(() => expect(received).toHaveLength(5));
    const texts = received.map((event) => (event.payload as { node: { text: string } }).node.text);
    expect(new Set(texts)).toEqual(new Set(nodes.map((node) => node.text)));
    unsubscribe();
  });

  it("delivers ephemeral signals without a sequence number", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const { received, unsubscribe } = collect(roomId);
    await context.bus.publishEphemeral({ type: "presence", room_id: roomId, payload: { watching: 3, participants: 1 } });
    await eventually(() => expect(received).toHaveLength(1));
    expect(received[0]).toEqual({ type: "presence", room_id: roomId, payload: { watching: 3, participants: 1 } });
    expect("seq" in received[0]!).toBe(false);
    unsubscribe();
  });

  it("stops delivering after unsubscribe", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const { received, unsubscribe } = collect(roomId);
    unsubscribe();
    await createNode(context.database.db, roomId, alice, { text: "unseen", x: 0, y: 0 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received).toHaveLength(0);
    expect(context.bus.subscriberCount(roomId)).toBe(0);
  });
});
