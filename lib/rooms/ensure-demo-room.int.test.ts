import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rooms } from "@/db/schema";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { DEMO_ROOM_TITLE, ensureDemoRoom } from "./ensure-demo-room";
import { parseRoomSettings } from "./room-settings";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

describe("the demo room", () => {
  it("is created once, with its task and a scheduler that starts agents while someone watches", async () => {
    await database.db.delete(rooms);
    const first = await ensureDemoRoom(database.db);
    expect(first.created).toBe(true);
    const [room] = await database.db.select().from(rooms).where(eq(rooms.id, first.id));
    expect(room!.title).toBe(DEMO_ROOM_TITLE);
    const settings = parseRoomSettings(room!.settings);
    expect(settings).toMatchObject({ scheduler_enabled: true, scheduler_needs_viewers: true });
    expect(settings.task).toMatch(/rain on a city window/);

    expect(await ensureDemoRoom(database.db)).toEqual({ id: first.id, created: false });
    expect(await database.db.select({ id: rooms.id }).from(rooms)).toHaveLength(1);
  });
});
