import http from "node:http";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as tidy } from "@/app/api/rooms/[roomId]/canvas/tidy/route";
import { POST as takeSeat } from "@/app/api/rooms/[roomId]/seat/route";
import { canvasEdges, canvasNodes, events, rooms, seats } from "@/db/schema";
import { createNode } from "@/lib/canvas/create-node";
import { updateNode } from "@/lib/canvas/update-node";
import { type Box, GAP, boxOf, shapeOf } from "@/lib/canvas/free-spot";
import { readEventsAfter } from "@/lib/events/read-events";
import { LIMITS, type PayloadOf } from "@/lib/protocol";
import edgesIndex from "@/pages/api/rooms/[roomId]/edges/index";
import edgeById from "@/pages/api/rooms/[roomId]/edges/[edgeId]";
import nodesIndex from "@/pages/api/rooms/[roomId]/nodes/index";
import nodeById from "@/pages/api/rooms/[roomId]/nodes/[nodeId]";
import { createTestRoom } from "@/test/fixtures";
import { call, cookieFrom } from "@/test/http";
import { servePagesApi } from "@/test/pages-api-server";
import { useTestRuntime } from "@/test/test-runtime";

const context = useTestRuntime();

// The canvas routes as Next.js serves them: Pages API handlers over a real socket.
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

async function seatedRoom() {
  const { roomId, agents } = await createTestRoom(context.database.db);
  const seat = await call(takeSeat, { url: `/api/rooms/${roomId}/seat`, method: "POST", params: { roomId }, body: { displayName: "Ada" } });
  expect(seat.status).toBe(201);
  expect(seat.headers.get("set-cookie")).toMatch(/HttpOnly; SameSite=Lax/);
  return { roomId, agents, cookie: cookieFrom(seat.headers.get("set-cookie")) };
}

interface SendOptions {
  cookie?: string;
  /** A value to send as JSON, or a string sent as it is. */
  body?: unknown;
  headers?: Record<string, string>;
}

async function send(method: string, path: string, options: SendOptions = {}) {
  const response = await fetch(server.url(path), {
    method,
    headers: { "content-type": "application/json", ...(options.cookie ? { cookie: options.cookie } : {}), ...options.headers },
    body: options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : null) as Record<string, any> };
}

async function lastSeq(roomId: string) {
  const [room] = await context.database.db.select({ lastSeq: rooms.lastSeq }).from(rooms).where(eq(rooms.id, roomId));
  return room!.lastSeq;
}

const note = (roomId: string, cookie: string | undefined, body: unknown, headers: Record<string, string> = {}) =>
  send("POST", `/api/rooms/${roomId}/nodes`, { cookie, body, headers });

describe("canvas routes", () => {
  it("lets a participant add, edit, move and delete a note, each with its event", async () => {
    const { roomId, cookie } = await seatedRoom();
    const created = await note(roomId, cookie, { text: "Rain", x: 10, y: 20 });
    expect(created.status).toBe(201);
    expect(created.headers.get("content-type")).toContain("application/json");
    const nodeId = created.body.node.id as string;
    expect(created.body.node).toMatchObject({ text: "Rain", x: 10, y: 20, authorKind: "human", authorName: "Ada", kind: "note" });

    const edited = await send("PATCH", `/api/rooms/${roomId}/nodes/${nodeId}`, { body: { text: "Rain taps" }, cookie });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ nodeId, changes: { text: "Rain taps" }, version: 2 });
    const moved = await send("PATCH", `/api/rooms/${roomId}/nodes/${nodeId}`, { body: { x: 300, y: -40.5 }, cookie });
    expect(moved.body.version).toBe(3);
    const [row] = await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.id, nodeId));
    expect(row).toMatchObject({ text: "Rain taps", x: 300, y: -40.5 });

    const removed = await send("DELETE", `/api/rooms/${roomId}/nodes/${nodeId}`, { cookie });
    expect(removed.status).toBe(200);
    const types = (await readEventsAfter(context.database.db, roomId, 0)).map((event) => event.type);
    expect(types).toEqual(["room.created", "seat.taken", "node.created", "node.updated", "node.updated", "node.deleted"]);
  });

  it("connects, relabels and removes links; deleting a note removes its links", async () => {
    const { roomId, cookie } = await seatedRoom();
    const a = (await note(roomId, cookie, { text: "A", x: 0, y: 0 })).body.node.id as string;
    const b = (await note(roomId, cookie, { text: "B", x: 0, y: 0 })).body.node.id as string;
    const edge = await send("POST", `/api/rooms/${roomId}/edges`, { body: { sourceId: a, targetId: b, label: "echoes" }, cookie });
    expect(edge.status).toBe(201);
    const edgeId = edge.body.edge.id as string;
    const relabel = await send("PATCH", `/api/rooms/${roomId}/edges/${edgeId}`, { body: { label: "answers" }, cookie });
    expect(relabel.body).toEqual({ edgeId, label: "answers" });
    const second = await send("POST", `/api/rooms/${roomId}/edges`, { body: { sourceId: b, targetId: a }, cookie });
    expect(second.body.edge.label).toBe("");
    const gone = await send("DELETE", `/api/rooms/${roomId}/edges/${edgeId}`, { cookie });
    expect(gone.status).toBe(200);
    const removed = await send("DELETE", `/api/rooms/${roomId}/nodes/${a}`, { cookie });
    expect(removed.body.edgeIds).toEqual([second.body.edge.id]);
    expect(await context.database.db.select().from(canvasEdges).where(eq(canvasEdges.roomId, roomId))).toHaveLength(0);
  });

  it("refuses spectators, other rooms' seats and forged tokens with 403, writing nothing", async () => {
    const { roomId, cookie } = await seatedRoom();
    const { cookie: otherRoomCookie } = await seatedRoom();
    const before = await lastSeq(roomId);
    for (const attempt of [undefined, otherRoomCookie, `${cookie.split("=")[0]}=forged-token`]) {
      const response = await note(roomId, attempt, { text: "sneaky", x: 0, y: 0 });
      expect(response.status).toBe(403);
      expect(response.body.error.message).toMatch(/Spectators can watch but not change the room/);
    }
    expect(await lastSeq(roomId)).toBe(before);
    expect(await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId))).toHaveLength(0);
  });

  it("answers 404 for an unknown room, note or link", async () => {
    const { roomId, cookie } = await seatedRoom();
    expect((await note("no-such-room", cookie, { text: "x", x: 0, y: 0 })).status).toBe(404);
    const missingNode = await send("PATCH", `/api/rooms/${roomId}/nodes/missing`, { body: { text: "x" }, cookie });
    expect(missingNode.status).toBe(404);
    expect(missingNode.body.error.message).toBe("Node missing not found.");
    expect((await send("DELETE", `/api/rooms/${roomId}/nodes/missing`, { cookie })).status).toBe(404);
    expect((await send("PATCH", `/api/rooms/${roomId}/edges/missing`, { body: { label: "x" }, cookie })).status).toBe(404);
  });

  it("answers a method a route does not serve with 405 in JSON, naming the ones it does", async () => {
    const { roomId, cookie } = await seatedRoom();
    const listed = await send("GET", `/api/rooms/${roomId}/nodes`, { cookie });
    expect(listed).toMatchObject({ status: 405, body: { error: { code: "method_not_allowed" } } });
    expect(listed.headers.get("allow")).toBe("POST");
    const replaced = await send("PUT", `/api/rooms/${roomId}/nodes/abc`, { cookie, body: {} });
    expect(replaced.status).toBe(405);
    expect(replaced.headers.get("allow")).toBe("PATCH, DELETE");
  });

  it("answers bad input with 400 and the reason, and writes nothing", async () => {
    const { roomId, cookie } = await seatedRoom();
    const before = await lastSeq(roomId);
    const cases: [unknown, RegExp][] = [
      ["{not json", /Malformed JSON/],
      ["", /Expected a JSON body/],
      [{ text: 42, x: 0, y: 0 }, /text: /],
      [{ text: "a", x: "left", y: 0 }, /x: /],
      [{ text: "a", x: 0 }, /Give both x and y, or neither/],
      [{ text: "a", x: 0, y: 0, near: { x: 5, y: 5 } }, /a position or a spot to be near, not both/],
      [{ text: "a", near: { x: "middle", y: 5 } }, /near.x: /],
      [{ text: "a", x: 0, y: 0, colour: "#ffffff" }, /unknown field\(s\) colour/],
      [{ text: "a".repeat(LIMITS.noteText + 1), x: 0, y: 0 }, new RegExp(`limited to ${LIMITS.noteText} characters`)],
      [{ text: "a", x: 1e12, y: 0 }, /x: /],
      [{ text: "a", x: 0, y: 0, color: "red" }, /color: must be a #rrggbb colour/],
      [{ text: "a", x: 0, y: 0, kind: "lyric" }, /unknown field\(s\) kind/],
      [[1, 2], /body: /],
      // Text PostgreSQL cannot hold is a 400 rather than a crash.
      [{ text: "a\u0000b", x: 0, y: 0 }, /^text: contains a character that cannot be stored/],
      ['{"text":"\\ud83d","x":0,"y":0}', /^text: contains a character that cannot be stored/],
    ];
    for (const [body, reason] of cases) {
      const response = await note(roomId, cookie, body);
      expect(response.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(response.body.error.message).toMatch(reason);
    }
    const invalidUtf8 = await fetch(server.url(`/api/rooms/${roomId}/nodes`), {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: Buffer.from([0x7b, 0xff, 0x7d]),
    });
    expect(invalidUtf8.status).toBe(400);
    const nodeId = (await note(roomId, cookie, { text: "ok", x: 0, y: 0 })).body.node.id as string;
    const afterCreate = await lastSeq(roomId);
    expect(afterCreate).toBe(before + 1);
    const empty = await send("PATCH", `/api/rooms/${roomId}/nodes/${nodeId}`, { body: {}, cookie });
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toMatch(/Nothing to change/);
    const nulInPath = await send("PATCH", `/api/rooms/${roomId}/nodes/x%00`, { cookie, body: { x: 1 } });
    expect(nulInPath.status).toBe(400);
    const nulRoom = await send("POST", "/api/rooms/%00/nodes", { cookie, body: { text: "x", x: 0, y: 0 } });
    expect(nulRoom.status).toBe(400);
    // A write another site's page makes with the participant's cookie is refused.
    const forged = await note(roomId, cookie, { text: "x", x: 0, y: 0 }, { origin: "https://evil.example" });
    expect(forged.status).toBe(403);
    expect(forged.body.error.message).toMatch(/not from https:\/\/evil.example/);
    const crossSite = await send("DELETE", `/api/rooms/${roomId}/nodes/${nodeId}`, { cookie, headers: { "sec-fetch-site": "cross-site" } });
    expect(crossSite.status).toBe(403);
    expect(await lastSeq(roomId)).toBe(afterCreate);
  });

  it("refuses a body over the limit with 413, even one that does not declare its length", async () => {
    const { roomId, cookie } = await seatedRoom();
    const before = await lastSeq(roomId);
    const huge = JSON.stringify({ text: "x".repeat(LIMITS.requestBodyBytes * 4), x: 0, y: 0 });
    expect((await note(roomId, cookie, huge)).status).toBe(413);
    // Chunked, with no Content-Length: the limit is enforced on what arrives.
    const chunked = await new Promise<number>((resolve, reject) => {
      const request = http.request(
        server.url(`/api/rooms/${roomId}/nodes`),
        { method: "POST", headers: { cookie, "content-type": "application/json" } },
        (response) => {
          response.resume();
          resolve(response.statusCode!);
        },
      );
      request.on("error", reject);
      for (let offset = 0; offset < huge.length; offset += 16_384) request.write(huge.slice(offset, offset + 16_384));
      request.end();
    });
    expect(chunked).toBe(413);
    expect(await lastSeq(roomId)).toBe(before);
  });

  it("refuses links to missing nodes, to themselves and across rooms", async () => {
    const { roomId, cookie } = await seatedRoom();
    const { roomId: otherRoom, cookie: otherCookie } = await seatedRoom();
    const a = (await note(roomId, cookie, { text: "A", x: 0, y: 0 })).body.node.id as string;
    const elsewhere = (await note(otherRoom, otherCookie, { text: "B", x: 0, y: 0 })).body.node.id as string;
    const before = await lastSeq(roomId);
    const link = (body: unknown) => send("POST", `/api/rooms/${roomId}/edges`, { body, cookie });
    const missing = await link({ sourceId: a, targetId: "nope" });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toBe("Node nope does not exist in this room.");
    expect((await link({ sourceId: a, targetId: a })).body.error.message).toMatch(/two different nodes/);
    expect((await link({ sourceId: a, targetId: elsewhere })).status).toBe(400);
    expect((await link({ sourceId: a, targetId: elsewhere, label: "x".repeat(81) })).body.error.message).toMatch(/limited to 80/);
    expect(await lastSeq(roomId)).toBe(before);
  });

  it("turns a retried write with the same Idempotency-Key into the original response", async () => {
    const { roomId, cookie } = await seatedRoom();
    const first = await note(roomId, cookie, { text: "once", x: 1, y: 1 }, { "idempotency-key": "retry-abc" });
    const again = await note(roomId, cookie, { text: "once", x: 1, y: 1 }, { "idempotency-key": "retry-abc" });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId))).toHaveLength(1);
    const keyed = await context.database.db
      .select()
      .from(events)
      .where(and(eq(events.roomId, roomId), eq(events.idempotencyKey, "retry-abc")));
    expect(keyed).toHaveLength(1);
    const tooLong = await note(roomId, cookie, { text: "x", x: 1, y: 1 }, { "idempotency-key": "k".repeat(129) });
    expect(tooLong.status).toBe(400);
  });

  it("refuses an Idempotency-Key reused for a different change with 409, changing nothing", async () => {
    const { roomId, cookie } = await seatedRoom();
    const created = await note(roomId, cookie, { text: "keep me", x: 1, y: 1 }, { "idempotency-key": "key-1" });
    const other = await note(roomId, cookie, { text: "other", x: 2, y: 2 });
    const nodeId = created.body.node.id as string;
    const seqBefore = await lastSeq(roomId);
    const path = (id: string) => `/api/rooms/${roomId}/nodes/${id}`;

    const deleted = await send("DELETE", path(nodeId), { cookie, headers: { "idempotency-key": "key-1" } });
    expect(deleted.status).toBe(409);
    expect(deleted.body.error.message).toMatch(/Idempotency-Key "key-1" was already used for a different change \(node.created\)/);

    const moved = await send("PATCH", path(nodeId), { cookie, body: { x: 50 }, headers: { "idempotency-key": "key-2" } });
    expect(moved.status).toBe(200);
    const movedAgain = await send("PATCH", path(nodeId), { cookie, body: { x: 50 }, headers: { "idempotency-key": "key-2" } });
    expect(movedAgain.status).toBe(200);
    expect(movedAgain.body).toEqual(moved.body);
    const otherMoved = await send("PATCH", path(other.body.node.id), { cookie, body: { x: 99 }, headers: { "idempotency-key": "key-2" } });
    expect(otherMoved.status).toBe(409);

    const rows = await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId));
    expect(rows.map((row) => [row.text, row.x]).sort()).toEqual([
      ["keep me", 50],
      ["other", 2],
    ]);
    expect(await lastSeq(roomId)).toBe(seqBefore + 1);
  });

  it("takes a participant's seat from memory after the first write, and still refuses writes to a deleted room", async () => {
    const { roomId, cookie } = await seatedRoom();
    expect((await note(roomId, cookie, { text: "first", x: 0, y: 0 })).status).toBe(201);
    // With the seat row gone, only the remembered seat can still identify the writer.
    await context.database.db.delete(seats).where(eq(seats.roomId, roomId));
    const second = await note(roomId, cookie, { text: "second", x: 0, y: 0 });
    expect(second.status).toBe(201);
    expect(second.body.node.authorName).toBe("Ada");

    await context.database.db.delete(rooms).where(eq(rooms.id, roomId));
    const afterDeletion = await note(roomId, cookie, { text: "third", x: 0, y: 0 });
    expect(afterDeletion.status).toBe(404);
    expect(afterDeletion.body.error.message).toMatch(/Room not found/);
  });
});

function apart(a: Box, b: Box): boolean {
  return a.x + a.width + GAP.x <= b.x || b.x + b.width + GAP.x <= a.x || a.y + a.height + GAP.y <= b.y || b.y + b.height + GAP.y <= a.y;
}

describe("placing and tidying notes", () => {
  it("puts a note given only a spot to be near clear of the work around it, and a placed note exactly where it was put", async () => {
    const { roomId, cookie } = await seatedRoom();
    const tall = await note(roomId, cookie, { text: "word ".repeat(300), x: 0, y: 0 });
    const near = await note(roomId, cookie, { text: "beside it", near: { x: 10, y: 10 } });
    expect(near.status).toBe(201);
    expect(apart(boxOf(shapeOf(tall.body.node)), boxOf(shapeOf(near.body.node)))).toBe(true);
    const onTop = await note(roomId, cookie, { text: "on purpose", x: 5, y: 5 });
    expect(onTop.body.node).toMatchObject({ x: 5, y: 5 });
    const anywhere = await note(roomId, cookie, { text: "wherever" });
    expect(anywhere.status).toBe(201);
    for (const other of [tall, near]) expect(apart(boxOf(shapeOf(other.body.node)), boxOf(shapeOf(anywhere.body.node)))).toBe(true);
  });

  it("moves an agent's node off taken space to the nearest free spot, so agents' work never covers other work", async () => {
    const { roomId, agents } = await createTestRoom(context.database.db);
    const agent = { kind: "agent" as const, id: agents[0]!.id, name: agents[0]!.name };
    const nodes = [];
    for (let index = 0; index < 12; index++) {
      const text = index % 3 === 0 ? "A long verse that wraps. ".repeat(20) : `Line ${index}`;
      nodes.push(await createNode(context.database.db, roomId, agent, { kind: "lyric", text, x: 0, y: 0 }));
    }
    expect(nodes[0]).toMatchObject({ x: 0, y: 0 });
    const boxes = nodes.map((node) => boxOf(shapeOf(node)));
    for (const [index, box] of boxes.entries()) for (const other of boxes.slice(index + 1)) expect(apart(box, other)).toBe(true);
  });

  it("gives agents' nodes placed at the same moment spots of their own", async () => {
    const { roomId, agents } = await createTestRoom(context.database.db);
    const nodes = await Promise.all(
      Array.from({ length: 24 }, (_, index) => {
        const agent = agents[index % agents.length]!;
        return createNode(
          context.database.db,
          roomId,
          { kind: "agent", id: agent.id, name: agent.name },
          { kind: "lyric", text: `Verse ${index}`, x: 0, y: 0 },
        );
      }),
    );
    const boxes = nodes.map((node) => boxOf(shapeOf(node)));
    for (const [index, box] of boxes.entries()) for (const other of boxes.slice(index + 1)) expect(apart(box, other)).toBe(true);
  });

  it("keeps an agent's node clear of the others when its text grows or it is moved, and leaves it be otherwise", async () => {
    const { roomId, agents } = await createTestRoom(context.database.db);
    const agent = { kind: "agent" as const, id: agents[0]!.id, name: agents[0]!.name };
    const db = context.database.db;
    const upper = await createNode(db, roomId, agent, { kind: "lyric", text: "Short line", x: 0, y: 0 });
    const below = boxOf(shapeOf(upper));
    const lower = await createNode(db, roomId, agent, { kind: "lyric", text: "Under it", x: 0, y: below.y + below.height + GAP.y });
    expect(lower).toMatchObject({ x: 0, y: below.y + below.height + GAP.y });
    const nodeAt = async (id: string) => (await db.select().from(canvasNodes).where(eq(canvasNodes.id, id)))[0]!;

    // Written long, the upper one would run into the one below it: it goes to the nearest free spot instead.
    const long = "A long verse that wraps over many lines. ".repeat(12);
    const grown = await updateNode(db, roomId, upper.id, agent, { text: long });
    expect(grown.changes).toMatchObject({ text: long, x: expect.any(Number), y: expect.any(Number) });
    const moved = await nodeAt(upper.id);
    expect(moved).toMatchObject({ text: long, x: grown.changes.x, y: grown.changes.y, version: 2 });
    expect(apart(boxOf(shapeOf(moved)), boxOf(shapeOf(lower)))).toBe(true);
    // Nothing else moves.
    expect(await nodeAt(lower.id)).toMatchObject({ x: lower.x, y: lower.y, version: 1 });

    // Moved onto other work, a node goes to the free spot nearest where it was asked to go.
    const onTop = await updateNode(db, roomId, lower.id, agent, { x: moved.x + 10, y: moved.y + 10 });
    const landed = await nodeAt(lower.id);
    expect(landed).toMatchObject({ x: onTop.changes.x, y: onTop.changes.y });
    expect(apart(boxOf(shapeOf(landed)), boxOf(shapeOf(moved)))).toBe(true);
    expect(Math.hypot(landed.x - moved.x, landed.y - moved.y)).toBeLessThan(1500);

    // A move to free space, a change that still fits and a new colour leave the node exactly as asked.
    const free = await updateNode(db, roomId, lower.id, agent, { x: 4000.5, y: -3000 });
    expect(free.changes).toEqual({ x: 4000.5, y: -3000 });
    expect(await updateNode(db, roomId, lower.id, agent, { text: "Still short" })).toMatchObject({ changes: { text: "Still short" } });
    expect(await updateNode(db, roomId, lower.id, agent, { color: "#fff3bf" })).toMatchObject({ changes: { color: "#fff3bf" } });
    expect(await nodeAt(lower.id)).toMatchObject({ x: 4000.5, y: -3000, text: "Still short", color: "#fff3bf" });
    // A retry of the move gets the original answer, not a second search.
    const again = await updateNode(db, roomId, upper.id, agent, { x: 0, y: 0 }, { idempotencyKey: "move-upper" });
    expect(await updateNode(db, roomId, upper.id, agent, { x: 0, y: 0 }, { idempotencyKey: "move-upper" })).toEqual(again);
  });

  it("finds agents' nodes that grow at the same moment spots of their own", async () => {
    const { roomId, agents } = await createTestRoom(context.database.db);
    const db = context.database.db;
    const column: { id: string }[] = [];
    for (let index = 0; index < 8; index++) {
      const agent = agents[index % agents.length]!;
      column.push(
        await createNode(
          db,
          roomId,
          { kind: "agent", id: agent.id, name: agent.name },
          { kind: "lyric", text: `Verse ${index}`, x: 0, y: 0 },
        ),
      );
    }
    await Promise.all(
      column.map((node, index) => {
        const agent = agents[index % agents.length]!;
        return updateNode(
          db,
          roomId,
          node.id,
          { kind: "agent", id: agent.id, name: agent.name },
          { text: `Verse ${index}, now much longer. `.repeat(10) },
        );
      }),
    );
    const boxes = (await db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId))).map((node) => boxOf(shapeOf(node)));
    for (const [index, box] of boxes.entries()) for (const other of boxes.slice(index + 1)) expect(apart(box, other)).toBe(true);
  });

  it("leaves a person's note where they drag it, even on other work, and what it already covered where it is as they write it", async () => {
    const { roomId, cookie } = await seatedRoom();
    const first = await note(roomId, cookie, { text: "First", x: 0, y: 0 });
    const second = await note(roomId, cookie, { text: "Second", near: { x: 0, y: 0 } });
    const dragged = await send("PATCH", `/api/rooms/${roomId}/nodes/${second.body.node.id}`, { body: { x: 20, y: 30 }, cookie });
    expect(dragged.body.changes).toEqual({ x: 20, y: 30 });
    const written = await send("PATCH", `/api/rooms/${roomId}/nodes/${first.body.node.id}`, {
      body: { text: "word ".repeat(300) },
      cookie,
    });
    expect(written.body.changes).toEqual({ text: "word ".repeat(300) });
    const rows = await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId));
    expect(rows.map((row) => [row.text.slice(0, 6), row.x, row.y]).sort()).toEqual([
      ["Second", 20, 30],
      ["word w", 0, 0],
    ]);
  });

  it("keeps a person's note where it is as they write it taller, and moves the work it comes to cover to the nearest free spots", async () => {
    const { roomId, agents, cookie } = await seatedRoom();
    const db = context.database.db;
    const nodeAt = async (id: string) => (await db.select().from(canvasNodes).where(eq(canvasNodes.id, id)))[0]!;
    const top = (await note(roomId, cookie, { text: "A short note", x: 0, y: 0 })).body.node;
    const clearBelow = (above: { x: number; y: number; kind: string; text: string }) => {
      const box = boxOf(shapeOf(above));
      return { x: above.x, y: box.y + box.height + GAP.y };
    };
    // An agent's verse just clear below the note, a person's note just clear below that, and one to the side.
    const agent = { kind: "agent" as const, id: agents[0]!.id, name: agents[0]!.name };
    const verse = await createNode(db, roomId, agent, { kind: "lyric", text: "Rain taps the glass", ...clearBelow(top) });
    expect(verse).toMatchObject(clearBelow(top));
    const theirs = (await note(roomId, cookie, { text: "Mine, further down", ...clearBelow(verse) })).body.node;
    const side = (await note(roomId, cookie, { text: "Off to the side", x: 2000, y: 0 })).body.node;
    const before = await lastSeq(roomId);

    const long = "A note that keeps on growing as its author writes. ".repeat(14);
    const written = await send("PATCH", `/api/rooms/${roomId}/nodes/${top.id}`, {
      body: { text: long },
      cookie,
      headers: { "idempotency-key": "grow-top" },
    });
    expect(written.status).toBe(200);
    // The note stays where its author put it, under their caret.
    expect(written.body).toMatchObject({ nodeId: top.id, changes: { text: long }, version: 2 });
    expect(await nodeAt(top.id)).toMatchObject({ x: 0, y: 0, text: long });

    // What it came to cover moved, once each, and nothing overlaps or crowds anything now.
    const rows = await db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId));
    const boxes = rows.map((row) => boxOf(shapeOf(row)));
    for (const [index, box] of boxes.entries()) for (const other of boxes.slice(index + 1)) expect(apart(box, other)).toBe(true);
    const movedVerse = await nodeAt(verse.id);
    expect([movedVerse.x, movedVerse.y]).not.toEqual([verse.x, verse.y]);
    expect(movedVerse.version).toBe(2);
    expect(await nodeAt(side.id)).toMatchObject({ x: 2000, y: 0, version: 1 });
    const events = await readEventsAfter(db, roomId, before);
    expect(new Set(events.map((event) => event.type))).toEqual(new Set(["node.updated"]));
    for (const event of events) expect(event.agent_name).toBe("Ada");
    const moves = events.map((event) => event.payload as PayloadOf<"node.updated">).filter((update) => update.nodeId !== top.id);
    const bumped = rows.filter((row) => row.id !== top.id && row.version === 2);
    expect(moves.map((move) => move.nodeId).sort()).toEqual(bumped.map((row) => row.id).sort());
    for (const row of bumped)
      expect(moves.find((move) => move.nodeId === row.id)).toMatchObject({ changes: { x: row.x, y: row.y }, version: 2 });
    expect(moves.map((move) => move.nodeId)).toContain(verse.id);
    // Each moved to the free spot nearest where it was, not somewhere far away.
    for (const moved of [movedVerse, await nodeAt(theirs.id)]) expect(Math.hypot(moved.x, moved.y - verse.y)).toBeLessThan(2000);

    // A retry is the same write: nothing moves again.
    const again = await send("PATCH", `/api/rooms/${roomId}/nodes/${top.id}`, {
      body: { text: long },
      cookie,
      headers: { "idempotency-key": "grow-top" },
    });
    expect(again.body).toEqual(written.body);
    expect(await lastSeq(roomId)).toBe(before + events.length);
  });

  it("lets a participant lay many notes out at once in one event, bumping each one's version", async () => {
    const { roomId, cookie } = await seatedRoom();
    const a = (await note(roomId, cookie, { text: "A", x: 0, y: 0 })).body.node.id as string;
    const b = (await note(roomId, cookie, { text: "B", x: 0, y: 0 })).body.node.id as string;
    const before = await lastSeq(roomId);
    const tidied = await call(tidy, {
      url: `/api/rooms/${roomId}/canvas/tidy`,
      method: "POST",
      params: { roomId },
      cookie,
      body: {
        positions: [
          { nodeId: a, x: 0, y: 0 },
          { nodeId: b, x: 400, y: 12.5 },
        ],
      },
    });
    expect(tidied.status).toBe(200);
    expect(await lastSeq(roomId)).toBe(before + 1);
    const [event] = await readEventsAfter(context.database.db, roomId, before);
    expect(event).toMatchObject({ type: "canvas.tidied", agent_name: "Ada" });
    expect(tidied.body.positions).toEqual(
      [
        { nodeId: a, x: 0, y: 0, version: 2 },
        { nodeId: b, x: 400, y: 12.5, version: 2 },
      ].sort((p, q) => (p.nodeId < q.nodeId ? -1 : 1)),
    );
    const [row] = await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.id, b));
    expect(row).toMatchObject({ x: 400, y: 12.5, version: 2 });
  });

  it("moves the notes that are still there when some were deleted while the layout was made, and says which were left out", async () => {
    const { roomId, cookie } = await seatedRoom();
    const a = (await note(roomId, cookie, { text: "A", x: 0, y: 0 })).body.node.id as string;
    const b = (await note(roomId, cookie, { text: "B", x: 0, y: 0 })).body.node.id as string;
    expect((await send("DELETE", `/api/rooms/${roomId}/nodes/${b}`, { cookie })).status).toBe(200);
    const before = await lastSeq(roomId);
    const attempt = (positions: { nodeId: string; x: number; y: number }[]) =>
      call(tidy, { url: `/api/rooms/${roomId}/canvas/tidy`, method: "POST", params: { roomId }, cookie, body: { positions } });
    const tidied = await attempt([
      { nodeId: a, x: 40, y: 50 },
      { nodeId: b, x: 400, y: 0 },
    ]);
    expect(tidied.status).toBe(200);
    expect(tidied.body).toMatchObject({ positions: [{ nodeId: a, x: 40, y: 50, version: 2 }], gone: [b] });
    expect(await lastSeq(roomId)).toBe(before + 1);
    const [event] = await readEventsAfter(context.database.db, roomId, before);
    expect(event).toMatchObject({ type: "canvas.tidied", payload: { positions: [{ nodeId: a, x: 40, y: 50, version: 2 }] } });

    // Every note it names is gone: nothing to move, nothing written.
    const nothing = await attempt([{ nodeId: b, x: 1, y: 1 }]);
    expect(nothing.status).toBe(200);
    expect(nothing.body).toMatchObject({ positions: [], gone: [b] });
    expect(await lastSeq(roomId)).toBe(before + 1);
  });

  it("refuses a tidy naming another room's or repeated notes, or from a spectator, and moves nothing", async () => {
    const { roomId, cookie } = await seatedRoom();
    const { roomId: otherRoom, cookie: otherCookie } = await seatedRoom();
    const a = (await note(roomId, cookie, { text: "A", x: 7, y: 7 })).body.node.id as string;
    const elsewhere = (await note(otherRoom, otherCookie, { text: "B", x: 0, y: 0 })).body.node.id as string;
    const before = await lastSeq(roomId);
    const attempt = (body: unknown, who: string | undefined = cookie) =>
      call(tidy, { url: `/api/rooms/${roomId}/canvas/tidy`, method: "POST", params: { roomId }, cookie: who, body });
    const cases: [unknown, RegExp][] = [
      [
        {
          positions: [
            { nodeId: a, x: 1, y: 1 },
            { nodeId: elsewhere, x: 1, y: 1 },
          ],
        },
        new RegExp(`Node id\\(s\\) of another room: ${elsewhere}`),
      ],
      [
        {
          positions: [
            { nodeId: a, x: 1, y: 1 },
            { nodeId: a, x: 2, y: 2 },
          ],
        },
        /Each note is placed once/,
      ],
      [{ positions: [] }, /at least one position/],
      [
        { positions: Array.from({ length: LIMITS.tidyNodes + 1 }, (_, index) => ({ nodeId: `n${index}`, x: 0, y: 0 })) },
        /At most 500 notes/,
      ],
      [{ positions: [{ nodeId: a, x: 1e12, y: 1 }] }, /x: /],
    ];
    for (const [body, reason] of cases) {
      const response = await attempt(body);
      expect(response.status).toBe(400);
      expect(response.body.error.message).toMatch(reason);
    }
    const spectator = await attempt({ positions: [{ nodeId: a, x: 1, y: 1 }] }, "");
    expect(spectator.status).toBe(403);
    expect(await lastSeq(roomId)).toBe(before);
    const [row] = await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.id, a));
    expect(row).toMatchObject({ x: 7, y: 7, version: 1 });
  });
});
