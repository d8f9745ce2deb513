import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { PATCH as updateBudgets } from "@/app/api/admin/instance/budgets/route";
import { PATCH as updateAgent } from "@/app/api/admin/rooms/[roomId]/agents/[agentId]/route";
import { PATCH as updateRoomSettings } from "@/app/api/admin/rooms/[roomId]/route";
import { POST as prune } from "@/app/api/admin/rooms/prune/route";
import { POST as signIn } from "@/app/api/admin/session/route";
import { POST as cancelBrainstorm } from "@/app/api/rooms/[roomId]/brainstorms/[brainstormId]/cancel/route";
import { POST as decideGate } from "@/app/api/rooms/[roomId]/brainstorms/[brainstormId]/gate/route";
import { POST as startBrainstorm } from "@/app/api/rooms/[roomId]/brainstorms/route";
import { POST as answer } from "@/app/api/rooms/[roomId]/broadcasts/[broadcastId]/answer/route";
import { POST as skip } from "@/app/api/rooms/[roomId]/broadcasts/[broadcastId]/skip/route";
import { POST as startBuildReview } from "@/app/api/rooms/[roomId]/build-reviews/route";
import { POST as tidy } from "@/app/api/rooms/[roomId]/canvas/tidy/route";
import { POST as sendCommand } from "@/app/api/rooms/[roomId]/commands/route";
import { POST as countSeat } from "@/app/api/rooms/[roomId]/presence/route";
import { POST as startRun } from "@/app/api/rooms/[roomId]/runs/route";
import { POST as takeSeat } from "@/app/api/rooms/[roomId]/seat/route";
import { POST as importRoom } from "@/app/api/rooms/import/route";
import { POST as createRoom } from "@/app/api/rooms/route";
import { adminActions, agents, canvasEdges, canvasNodes, events, instanceSettings, rooms } from "@/db/schema";
import { createEdge } from "@/lib/canvas/edges";
import { createNode } from "@/lib/canvas/create-node";
import edgesIndex from "@/pages/api/rooms/[roomId]/edges/index";
import edgeById from "@/pages/api/rooms/[roomId]/edges/[edgeId]";
import nodesIndex from "@/pages/api/rooms/[roomId]/nodes/index";
import nodeById from "@/pages/api/rooms/[roomId]/nodes/[nodeId]";
import { alice, createTestRoom } from "@/test/fixtures";
import { call, cookieFrom } from "@/test/http";
import { useOfflineServer } from "@/test/offline-server";
import { servePagesApi } from "@/test/pages-api-server";
import { useTestRuntime } from "@/test/test-runtime";

const TOKEN = "admin-token-for-hostile-tests-0123";
const context = useTestRuntime();
// Creating a room must reach its body: with a paid provider's key in the shell, only admins could.
useOfflineServer();

let server: Awaited<ReturnType<typeof servePagesApi>>;
beforeAll(async () => {
  server = await servePagesApi({
    "/api/rooms/[roomId]/nodes": nodesIndex,
    "/api/rooms/[roomId]/nodes/[nodeId]": nodeById,
    "/api/rooms/[roomId]/edges": edgesIndex,
    "/api/rooms/[roomId]/edges/[edgeId]": edgeById,
  });
});
afterAll(() => server.close());
beforeEach(() => {
  vi.stubEnv("ADMIN_TOKEN", TOKEN);
});

async function seatedRoom() {
  const { roomId } = await createTestRoom(context.database.db);
  const seat = await call(takeSeat, { url: "/x", method: "POST", params: { roomId }, body: { displayName: "Ada" } });
  return { roomId, cookie: cookieFrom(seat.headers.get("set-cookie")) };
}

async function overHttp(method: string, path: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(server.url(path), { method, headers: { "content-type": "application/json", ...headers }, body });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as { error?: { message: string } } & Record<string, unknown> };
}

const nestedArrays = "[".repeat(5000) + "]".repeat(5000);
const nestedObjects = '{"a":'.repeat(5000) + "1" + "}".repeat(5000);

describe("a JSON body nested 5,000 levels deep", () => {
  it("is a 400 on every JSON route, and changes nothing", async () => {
    const { roomId, cookie } = await seatedRoom();
    const [agent] = await context.database.db.select().from(agents).where(eq(agents.roomId, roomId));
    // What the admin routes would change: an agent, the server's budgets, the audit trail.
    const adminState = async () => ({
      agent: (await context.database.db.select().from(agents).where(eq(agents.id, agent!.id)))[0],
      settings: await context.database.db.select().from(instanceSettings),
      audited: (await context.database.db.select({ id: adminActions.id }).from(adminActions)).length,
    });
    const adminBefore = await adminState();
    const node = await createNode(context.database.db, roomId, alice, { text: "a", x: 0, y: 0 });
    const other = await createNode(context.database.db, roomId, alice, { text: "b", x: 300, y: 0 });
    const edge = await createEdge(context.database.db, roomId, alice, { sourceId: node.id, targetId: other.id, label: "x" });
    const [{ lastSeq: before }] = (await context.database.db
      .select({ lastSeq: rooms.lastSeq })
      .from(rooms)
      .where(eq(rooms.id, roomId))) as [{ lastSeq: number }];
    const roomsBefore = (await context.database.db.select({ id: rooms.id }).from(rooms)).length;
    const admin = { authorization: `Bearer ${TOKEN}` };
    for (const body of [nestedArrays, nestedObjects]) {
      const appRoutes = [
        () => call(signIn, { url: "/x", method: "POST", params: {}, body }),
        () => call(updateRoomSettings, { url: "/x", method: "PATCH", params: { roomId }, body, headers: admin }),
        () => call(updateAgent, { url: "/x", method: "PATCH", params: { roomId, agentId: agent!.id }, body, headers: admin }),
        () => call(prune, { url: "/x", method: "POST", params: {}, body, headers: admin }),
        () => call(updateBudgets, { url: "/x", method: "PATCH", params: {}, body, headers: admin }),
        () => call(createRoom, { url: "/x", method: "POST", params: {}, body }),
        () => call(importRoom, { url: "/x", method: "POST", params: {}, body }),
        () => call(takeSeat, { url: "/x", method: "POST", params: { roomId }, body }),
        () => call(startRun, { url: "/x", method: "POST", params: { roomId }, body, cookie }),
        () => call(startBrainstorm, { url: "/x", method: "POST", params: { roomId }, body, cookie }),
        () => call(decideGate, { url: "/x", method: "POST", params: { roomId, brainstormId: "b" }, body, cookie }),
        () => call(cancelBrainstorm, { url: "/x", method: "POST", params: { roomId, brainstormId: "b" }, body, cookie }),
        () => call(startBuildReview, { url: "/x", method: "POST", params: { roomId }, body, cookie }),
        () => call(tidy, { url: "/x", method: "POST", params: { roomId }, body, cookie }),
        () => call(sendCommand, { url: "/x", method: "POST", params: { roomId }, body, cookie }),
        () => call(countSeat, { url: "/x", method: "POST", params: { roomId }, body, cookie }),
        () => call(answer, { url: "/x", method: "POST", params: { roomId, broadcastId: "b" }, body, cookie }),
        () => call(skip, { url: "/x", method: "POST", params: { roomId, broadcastId: "b" }, body, cookie }),
      ];
      for (const [index, route] of appRoutes.entries()) {
        const response = await route();
        expect([index, response.status]).toEqual([index, 400]);
        expect(response.body.error.message).toMatch(/nests deeper than 64 levels/);
      }
      for (const [method, path] of [
        ["POST", `/api/rooms/${roomId}/nodes`],
        ["PATCH", `/api/rooms/${roomId}/nodes/${node.id}`],
        ["POST", `/api/rooms/${roomId}/edges`],
        ["PATCH", `/api/rooms/${roomId}/edges/${edge.id}`],
      ] as const) {
        const response = await overHttp(method, path, body, { cookie });
        expect([path, response.status]).toEqual([path, 400]);
        expect(response.body.error!.message).toMatch(/nests deeper than 64 levels/);
      }
    }
    const [after] = await context.database.db.select({ lastSeq: rooms.lastSeq }).from(rooms).where(eq(rooms.id, roomId));
    expect(after!.lastSeq).toBe(before);
    expect((await context.database.db.select({ id: rooms.id }).from(rooms)).length).toBe(roomsBefore);
    expect(await adminState()).toEqual(adminBefore);
  });

  it("is no 400 when the brackets are inside strings", async () => {
    const { roomId, cookie } = await seatedRoom();
    const text = "[{".repeat(200);
    const response = await overHttp("POST", `/api/rooms/${roomId}/nodes`, JSON.stringify({ text, x: 0, y: 0 }), { cookie });
    expect(response.status).toBe(201);
  });
});

describe("a body sent to a participant route that takes none", () => {
  it("may be empty or an empty object; anything else is a 400 naming it, and changes nothing", async () => {
    const { roomId, cookie } = await seatedRoom();
    const node = await createNode(context.database.db, roomId, alice, { text: "a", x: 0, y: 0 });
    const withdraw = (body?: string) => overHttp("DELETE", `/api/rooms/${roomId}/nodes/${node.id}`, body ?? "", { cookie });
    const refused = await withdraw('{"force":true}');
    expect(refused.status).toBe(400);
    expect(refused.body.error!.message).toBe("body: unknown field(s) force");
    expect((await withdraw("{")).status).toBe(400);
    const onCanvas = async () =>
      (await context.database.db.select({ id: canvasNodes.id }).from(canvasNodes).where(eq(canvasNodes.id, node.id))).length;
    expect(await onCanvas()).toBe(1);
    expect((await withdraw(" {} ")).status).toBe(200);
    expect(await onCanvas()).toBe(0);
    // No body at all, as the room's page sends: the route answers as it always has.
    const stop = await call(cancelBrainstorm, { url: "/x", method: "POST", params: { roomId, brainstormId: "missing" }, cookie });
    expect(stop.status).toBe(404);
  });
});

describe("one edge update sent twenty times at once under one Idempotency-Key", () => {
  it("gets the original answer every time, and changes the edge once", async () => {
    const { roomId, cookie } = await seatedRoom();
    const source = await createNode(context.database.db, roomId, alice, { text: "a", x: 0, y: 0 });
    const target = await createNode(context.database.db, roomId, alice, { text: "b", x: 300, y: 0 });
    const edge = await createEdge(context.database.db, roomId, alice, { sourceId: source.id, targetId: target.id, label: "before" });
    const copies = await Promise.all(
      Array.from({ length: 20 }, () =>
        overHttp("PATCH", `/api/rooms/${roomId}/edges/${edge.id}`, JSON.stringify({ label: "after" }), {
          cookie,
          "idempotency-key": "relabel-once",
        }),
      ),
    );
    const [first] = copies;
    expect(first!.status).toBe(200);
    for (const copy of copies) expect(copy).toEqual(first);
    const updates = await context.database.db.select().from(events).where(eq(events.roomId, roomId));
    expect(updates.filter((event) => event.type === "edge.updated")).toHaveLength(1);
    const [row] = await context.database.db.select().from(canvasEdges).where(eq(canvasEdges.id, edge.id));
    expect(row!.label).toBe("after");
  });
});
