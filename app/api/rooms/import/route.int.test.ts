import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agents, rooms } from "@/db/schema";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { jsonRequest, useTestRuntime } from "@/test/test-runtime";
import { POST } from "./route";

const context = useTestRuntime();

const fixture = (name: string) => fs.readFileSync(path.join(process.cwd(), "lib/rooms/fixtures", name), "utf8");

describe("POST /api/rooms/import", () => {
  it("creates a room with the file's agents and broadcast settings", async () => {
    const response = await POST(jsonRequest("/api/rooms/import", "POST", { yaml: fixture("broadcast-human.yaml"), title: "Human loop" }));
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body.ignored).toContain("agents[0].backend.cwd");
    const [room] = await context.database.db.select().from(rooms).where(eq(rooms.id, body.room.id));
    expect(room!.title).toBe("Human loop");
    expect(room!.template).toBe("imported");
    expect(parseRoomSettings(room!.settings)).toMatchObject({ broadcast: "human", broadcast_timeout: 60, max_broadcasts_per_agent: 5 });
    const roster = await context.database.db.select().from(agents).where(eq(agents.roomId, body.room.id));
    expect(roster.map((agent) => agent.model).sort()).toEqual(["google:gemini-3-pro-preview", "openai:gpt-5"]);
  });

  it("answers a malformed file with 400 naming the key and line, and creates nothing", async () => {
    const before = (await context.database.db.select().from(rooms)).length;
    for (const type of ["carrier-pigeon", "constructor", "__proto__"]) {
      const response = await POST(
        jsonRequest("/api/rooms/import", "POST", { yaml: `agents:\n  - id: a\n    backend:\n      type: ${type}\n` }),
      );
      expect(response.status).toBe(400);
      const body = await response.json();
      expect(body.error.message).toContain(`agents[0].backend.type (line 4): unknown backend type "${type}"`);
      expect(body.error.details).toEqual({ key: "agents[0].backend.type", line: 4 });
    }
    expect((await context.database.db.select().from(rooms)).length).toBe(before);

    const wrongShape = await POST(jsonRequest("/api/rooms/import", "POST", { yaml: "x", extra: 1 }));
    expect(wrongShape.status).toBe(400);
    expect((await wrongShape.json()).error.message).toMatch(/unknown field\(s\) extra/);
  });

  it("titles the room with the task's first line that has text", async () => {
    const yaml = "task: |\n\n  \n  Write a lullaby\n  for a lighthouse\nagents:\n  - id: a\n    backend: {type: openai}\n";
    const response = await POST(jsonRequest("/api/rooms/import", "POST", { yaml }));
    expect(response.status).toBe(201);
    const [room] = await context.database.db.select().from(rooms).where(eq(rooms.id, (await response.json()).room.id));
    expect(room!.title).toBe("Write a lullaby");
  });
});
