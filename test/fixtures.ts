import type { Db } from "@/db";
import type { CanvasAuthor } from "@/lib/canvas/author";
import { createRoom } from "@/lib/rooms/create-room";
import type { RoomSettingsPatch } from "@/lib/rooms/room-settings";

export const alice: CanvasAuthor = { kind: "human", id: "human:alice", name: "Alice" };

let counter = 0;

export async function createTestRoom(db: Db, settings: RoomSettingsPatch = {}) {
  counter += 1;
  const { room, agents } = await createRoom(db, { title: `Test room ${counter}`, template: "creative-canvas" }, { settings });
  return { roomId: room.id, room, agents };
}

/** Waits until `check` passes or the deadline expires, then re-throws its last failure. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 5000, intervalMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      return await check();
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw lastError;
}
