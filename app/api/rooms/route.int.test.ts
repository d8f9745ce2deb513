import { describe, expect, it } from "vitest";
import { rooms } from "@/db/schema";
import { readEventsAfter } from "@/lib/events/read-events";
import { call } from "@/test/http";
import { useOfflineServer } from "@/test/offline-server";
import { useTestRuntime } from "@/test/test-runtime";
import { GET as getRoom } from "./[roomId]/route";
import { GET, POST } from "./route";

const context = useTestRuntime();
// Anyone may create rooms here: the shell running the tests may hold a paid provider's key.
useOfflineServer();

const create = (body: unknown) => call(POST, { url: "/api/rooms", method: "POST", params: {}, body });

describe("/api/rooms", () => {
  it("creates a Creative canvas room with its five agents and lists it", async () => {
    const created = await create({ title: "  Night songs  ", template: "creative-canvas" });
    expect(created.status).toBe(201);
    expect(created.body.room.title).toBe("Night songs");
    expect(created.body.agents.map((agent: { name: string }) => agent.name)).toEqual([
      "Idea Weaver",
      "Scene Painter",
      "Songwriter",
      "Storyteller",
      "Creative Curator",
    ]);
    for (const agent of created.body.agents) {
      expect(agent.color).toMatch(/^#[0-9a-f]{6}$/);
      expect(agent.role.length).toBeGreaterThan(2);
      expect(agent.description.length).toBeGreaterThan(10);
      expect(agent.model).toMatch(/^script:/);
    }
    const [event] = await readEventsAfter(context.database.db, created.body.room.id, 0);
    expect(event).toMatchObject({ type: "room.created", seq: 1, payload: { title: "Night songs", template: "creative-canvas" } });

    const list = await call(GET, { url: "/api/rooms", method: "GET", params: {} });
    const listed = list.body.rooms.find((room: { id: string }) => room.id === created.body.room.id);
    expect(listed).toMatchObject({ title: "Night songs", template: "creative-canvas", watching: 0 });
    expect(listed.agents).toHaveLength(5);

    const snapshot = await call(getRoom, { url: "/x", method: "GET", params: { roomId: created.body.room.id } });
    expect(snapshot.body).toMatchObject({ lastSeq: 1, nodes: [], edges: [], seat: null });
    expect(snapshot.body.agents.every((agent: { unavailableReason: string | null }) => agent.unavailableReason === null)).toBe(true);
  });

  it("answers bad input with 400 and the reason, creating nothing", async () => {
    const before = (await context.database.db.select().from(rooms)).length;
    const cases: [unknown, RegExp][] = [
      [{ title: "x", template: "no-such-template" }, /Unknown template "no-such-template"/],
      [{ title: "x", template: "constructor" }, /Unknown template "constructor"/],
      [{ title: "x", template: "__proto__" }, /Unknown template "__proto__"/],
      [{ title: "x", template: "toString" }, /Unknown template "toString"/],
      [{ title: "   ", template: "creative-canvas" }, /title: Give the room a title/],
      [{ title: "x".repeat(121), template: "creative-canvas" }, /title: /],
      [{ title: "x", template: "creative-canvas", owner: "me" }, /unknown field\(s\) owner/],
      [{ title: 7, template: "creative-canvas" }, /title: /],
      ["{]", /Malformed JSON/],
    ];
    for (const [body, reason] of cases) {
      const response = await create(body);
      expect(response.status).toBe(400);
      expect(response.body.error.message).toMatch(reason);
    }
    expect((await context.database.db.select().from(rooms)).length).toBe(before);
  });

  it("answers 404 for a room that does not exist", async () => {
    const response = await call(getRoom, { url: "/x", method: "GET", params: { roomId: "missing" } });
    expect(response.status).toBe(404);
    expect(response.body.error.message).toBe("Room not found.");
  });
});
