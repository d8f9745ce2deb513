import http from "node:http";
import type { AddressInfo } from "node:net";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as takeSeat } from "@/app/api/rooms/[roomId]/seat/route";
import { canvasEdges, canvasNodes, events } from "@/db/schema";
import { LIMITS } from "@/lib/protocol";
import { createTestRoom, eventually } from "@/test/fixtures";
import { call, cookieFrom } from "@/test/http";
import { readSse } from "@/test/sse-reader";
import { useTestRuntime } from "@/test/test-runtime";
import { liveRouteFor } from "./live-routes";

const context = useTestRuntime();

// The front server's dispatch over real HTTP; what it leaves to Next.js answers 599 here.
let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((request, response) => {
    const live = liveRouteFor(request);
    if (live) void live(request, response);
    else response.writeHead(599).end("left to Next.js");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function seatedRoom() {
  const { roomId } = await createTestRoom(context.database.db);
  const seat = await call(takeSeat, { url: `/api/rooms/${roomId}/seat`, method: "POST", params: { roomId }, body: { displayName: "Ada" } });
  return { roomId, cookie: cookieFrom(seat.headers.get("set-cookie")) };
}

async function send(method: string, path: string, options: { cookie?: string; body?: string; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json", ...(options.cookie ? { cookie: options.cookie } : {}), ...options.headers },
    body: options.body,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (the fallback's text)
  }
  return { status: response.status, headers: response.headers, body: body as Record<string, any> };
}

const storedEvents = (roomId: string) =>
  context.database.db.select({ type: events.type, key: events.idempotencyKey }).from(events).where(eq(events.roomId, roomId));

describe("the live path served outside Next.js", () => {
  it("adds, moves, connects and deletes notes through the same handlers, each with its event", async () => {
    const { roomId, cookie } = await seatedRoom();
    const before = (await storedEvents(roomId)).length;
    const first = await send("POST", `/api/rooms/${roomId}/nodes`, { cookie, body: JSON.stringify({ text: "Rain", x: 1, y: 2 }) });
    expect(first.status).toBe(201);
    expect(first.headers.get("content-type")).toContain("application/json");
    expect(first.body.node).toMatchObject({ text: "Rain", x: 1, y: 2, authorName: "Ada" });
    const second = await send("POST", `/api/rooms/${roomId}/nodes`, { cookie, body: JSON.stringify({ text: "Window", x: 9, y: 9 }) });
    const [a, b] = [first.body.node.id as string, second.body.node.id as string];

    const moved = await send("PATCH", `/api/rooms/${roomId}/nodes/${a}`, { cookie, body: JSON.stringify({ x: 40 }) });
    expect(moved).toMatchObject({ status: 200, body: { nodeId: a, version: 2 } });
    const edge = await send("POST", `/api/rooms/${roomId}/edges`, { cookie, body: JSON.stringify({ sourceId: a, targetId: b, label: "falls on" }) });
    expect(edge.status).toBe(201);
    const edgeId = edge.body.edge.id as string;
    const relabelled = await send("PATCH", `/api/rooms/${roomId}/edges/${edgeId}`, { cookie, body: JSON.stringify({ label: "taps" }) });
    expect(relabelled.status).toBe(200);
    expect((await send("DELETE", `/api/rooms/${roomId}/edges/${edgeId}`, { cookie })).status).toBe(200);
    expect((await send("DELETE", `/api/rooms/${roomId}/nodes/${b}`, { cookie })).status).toBe(200);

    const types = (await storedEvents(roomId)).slice(before).map((event) => event.type);
    expect(types).toEqual(["node.created", "node.created", "node.updated", "edge.created", "edge.updated", "edge.deleted", "node.deleted"]);
    const [row] = await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.id, a));
    expect(row!.x).toBe(40);
    expect(await context.database.db.select().from(canvasEdges).where(eq(canvasEdges.roomId, roomId))).toEqual([]);
  });

  it("answers bad input and spectators with the handlers' reasons and writes nothing", async () => {
    const { roomId, cookie } = await seatedRoom();
    const before = (await storedEvents(roomId)).length;
    const spectator = await send("POST", `/api/rooms/${roomId}/nodes`, { body: JSON.stringify({ text: "x", x: 0, y: 0 }) });
    expect(spectator.status).toBe(403);
    expect(spectator.body.error.message).toMatch(/Spectators/);
    const malformed = await send("POST", `/api/rooms/${roomId}/nodes`, { cookie, body: "{nope" });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toMatch(/Malformed JSON/);
    const unknownField = await send("POST", `/api/rooms/${roomId}/nodes`, { cookie, body: JSON.stringify({ text: "x", x: 0, y: 0, owner: "me" }) });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error.message).toMatch(/owner/);
    const missingNode = await send("POST", `/api/rooms/${roomId}/edges`, {
      cookie,
      body: JSON.stringify({ sourceId: crypto.randomUUID(), targetId: crypto.randomUUID() }),
    });
    expect(missingNode.status).toBe(400);
    const unknownRoom = await send("POST", `/api/rooms/${crypto.randomUUID()}/nodes`, { cookie, body: JSON.stringify({ text: "x", x: 0, y: 0 }) });
    expect(unknownRoom.status).toBe(404);
    // Text PostgreSQL cannot hold, in a body or in the path, is a 400 rather than a crash.
    const nul = await send("POST", `/api/rooms/${roomId}/nodes`, { cookie, body: JSON.stringify({ text: "a\u0000b", x: 0, y: 0 }) });
    expect(nul.status).toBe(400);
    expect(nul.body.error.message).toMatch(/^text: contains a character that cannot be stored/);
    const lone = await send("POST", `/api/rooms/${roomId}/nodes`, { cookie, body: '{"text":"\\ud83d","x":0,"y":0}' });
    expect(lone.status).toBe(400);
    const note = await send("POST", `/api/rooms/${roomId}/nodes`, { cookie, body: JSON.stringify({ text: "mine", x: 0, y: 0 }) });
    const relabel = await send("PATCH", `/api/rooms/${roomId}/nodes/${note.body.node.id}`, { cookie, body: JSON.stringify({ kind: "lyric" }) });
    expect(relabel.status).toBe(400);
    expect(relabel.body.error.message).toMatch(/unknown field\(s\) kind/);
    const nothing = await send("PATCH", `/api/rooms/${roomId}/nodes/${note.body.node.id}`, { cookie, body: "{}" });
    expect(nothing).toMatchObject({ status: 400, body: { error: { message: expect.stringMatching(/Nothing to change/) } } });
    const nulInPath = await send("PATCH", `/api/rooms/${roomId}/nodes/x%00`, { cookie, body: JSON.stringify({ x: 1 }) });
    expect(nulInPath.status).toBe(400);
    const nulRoom = await send("POST", `/api/rooms/%00/nodes`, { cookie, body: JSON.stringify({ text: "x", x: 0, y: 0 }) });
    expect(nulRoom.status).toBe(400);
    const seat = await call(takeSeat, { url: `/api/rooms/${roomId}/seat`, method: "POST", params: { roomId }, body: { displayName: "\ud83d" } });
    expect(seat.status).toBe(400);
    expect((await storedEvents(roomId)).length).toBe(before + 1); // the one note
  });

  it("refuses a body over the limit with 413, even one that does not declare its length", async () => {
    const { roomId, cookie } = await seatedRoom();
    const before = (await storedEvents(roomId)).length;
    const huge = JSON.stringify({ text: "x".repeat(LIMITS.requestBodyBytes * 4), x: 0, y: 0 });
    const declared = await send("POST", `/api/rooms/${roomId}/nodes`, { cookie, body: huge });
    expect(declared.status).toBe(413);
    // Chunked, with no Content-Length: the limit is enforced on what arrives.
    const chunked = await new Promise<number>((resolve, reject) => {
      const request = http.request(`${base}/api/rooms/${roomId}/nodes`, { method: "POST", headers: { cookie, "content-type": "application/json" } }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      });
      request.on("error", reject);
      for (let offset = 0; offset < huge.length; offset += 16_384) request.write(huge.slice(offset, offset + 16_384));
      request.end();
    });
    expect(chunked).toBe(413);
    expect((await storedEvents(roomId)).length).toBe(before);
  });

  it("replays a retried write with the same Idempotency-Key", async () => {
    const { roomId, cookie } = await seatedRoom();
    const write = () => send("POST", `/api/rooms/${roomId}/nodes`, { cookie, body: JSON.stringify({ text: "once", x: 0, y: 0 }), headers: { "idempotency-key": "k-live-1" } });
    const [one, two] = [await write(), await write()];
    expect(two.body.node.id).toBe(one.body.node.id);
    const keyed = await context.database.db
      .select()
      .from(events)
      .where(and(eq(events.roomId, roomId), eq(events.idempotencyKey, "k-live-1")));
    expect(keyed).toHaveLength(1);
  });

  it("streams the room's events from Last-Event-ID", async () => {
    const { roomId, cookie } = await seatedRoom();
    const created = await send("POST", `/api/rooms/${roomId}/nodes`, { cookie, body: JSON.stringify({ text: "replayed", x: 0, y: 0 }) });
    expect(created.status).toBe(201);
    const controller = new AbortController();
    const response = await fetch(`${base}/api/rooms/${roomId}/events?after=0`, { signal: controller.signal });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const sse = readSse(response.body!);
    await eventually(() => expect(sse.events().some((event) => event.type === "node.created")).toBe(true));
    await send("POST", `/api/rooms/${roomId}/nodes`, { cookie, body: JSON.stringify({ text: "live", x: 0, y: 0 }) });
    await eventually(() => expect(sse.events().filter((event) => event.type === "node.created")).toHaveLength(2));
    controller.abort();
    await sse.cancel();
  });

  it("leaves everything else to Next.js", async () => {
    const { roomId } = await seatedRoom();
    const left = [
      ["GET", `/api/rooms/${roomId}/nodes`],
      ["PUT", `/api/rooms/${roomId}/nodes/abc`],
      ["POST", `/api/rooms/${roomId}/events`],
      ["GET", `/api/rooms/${roomId}`],
      ["POST", `/api/rooms/${roomId}/seat`],
      ["POST", `/api/rooms/${roomId}/nodes/`],
      ["POST", `/api/rooms/${roomId}/nodes/extra/segments`],
      ["PATCH", `/api/rooms/%E0%A4%A/nodes/abc`],
      ["GET", "/"],
    ];
    for (const [method, path] of left) {
      const answer = await send(method!, path!, method === "GET" ? {} : { body: "{}" });
      expect(answer.status, `${method} ${path}`).toBe(599);
    }
  });
});
