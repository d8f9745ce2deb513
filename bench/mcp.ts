// How fast an outside agent's note reaches a viewer: an MCP client (the SDK's own Client over
// Streamable HTTP) creates notes through the MCP endpoint while a viewer watches the room's
// event stream, alternated with the same notes made through the HTTP route a seated person
// uses. Both paths are served in one process by the real route handlers, on PGlite (or on
// PostgreSQL when DATABASE_URL is set). Ends with one line of JSON.
// Usage: npm run bench:mcp [-- --samples=200 --warmup=20]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import * as roomMcp from "../app/api/rooms/[roomId]/mcp/route";
import { seatCookieName, takeSeat } from "../lib/auth/seats";
import { inviteExternalAgent } from "../lib/external/external-tokens";
import { createRoom } from "../lib/rooms/create-room";
import eventsRoute from "../pages/api/rooms/[roomId]/events";
import notesRoute from "../pages/api/rooms/[roomId]/nodes/index";
import { serveRoutes } from "../test/app-route-server";
import { createTestDatabase } from "../test/test-database";
import { installTestRuntime } from "../test/test-runtime";
import { connectSse } from "./support/sse-client";
import { args, percentile, round } from "./support/stats";

const options = args();
const SAMPLES = Number(options.samples ?? 200);
const WARMUP = Number(options.warmup ?? 20);
// A writer's own rate of writes would refuse a run this long; the bench measures delivery, not the limit.
process.env.PARLEY_SEAT_WRITES_PER_MINUTE = "0";
process.env.PARLEY_TEST_DRIVER ??= process.env.DATABASE_URL ? "postgres" : "pglite";

const database = await createTestDatabase();
const runtime = await installTestRuntime(database);
const server = await serveRoutes({
  app: { "/api/rooms/[roomId]/mcp": (request, route) => roomMcp.POST(request, route as never) },
  pages: { "/api/rooms/[roomId]/events": eventsRoute, "/api/rooms/[roomId]/nodes": notesRoute },
});
const { room } = await createRoom(database.db, { title: "MCP bench", template: "creative-canvas" });
const { token: seatToken } = await takeSeat(database.db, room.id, { displayName: "Bench" });
const invited = await inviteExternalAgent(database.db, room.id, { id: "admin", name: "Admin" }, { name: "Bench Agent" });
const cookie = `${seatCookieName(room.id)}=${seatToken}`;

const arrivals = new Map<string, number>();
const waiting = new Map<string, () => void>();
const viewer = connectSse(server.url(`/api/rooms/${room.id}/events`), (data, receivedAt) => {
  const event = JSON.parse(data) as { type: string; payload: { node?: { text: string } } };
  const text = event.type === "node.created" ? event.payload.node?.text : undefined;
  if (!text) return;
  arrivals.set(text, receivedAt);
  waiting.get(text)?.();
});
await viewer.ready;

const client = new Client({ name: "parley-bench", version: "1.0.0" });
await client.connect(
  new StreamableHTTPClientTransport(new URL(server.url(`/api/rooms/${room.id}/mcp`)), {
    requestInit: { headers: { Authorization: `Bearer ${invited.token}` } },
  }),
);

function seen(text: string): Promise<void> {
  if (arrivals.has(text)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`"${text}" never reached the viewer`)), 20_000);
    waiting.set(text, () => {
      clearTimeout(timer);
      waiting.delete(text);
      resolve();
    });
  });
}

async function overMcp(text: string): Promise<number> {
  const sentAt = performance.now();
  const arrival = seen(text);
  const result = await client.callTool({ name: "create_note", arguments: { text } });
  if (result.isError) throw new Error(`create_note failed: ${JSON.stringify(result.content)}`);
  await arrival;
  return arrivals.get(text)! - sentAt;
}

async function overHttp(text: string): Promise<number> {
  const sentAt = performance.now();
  const arrival = seen(text);
  const response = await fetch(server.url(`/api/rooms/${room.id}/nodes`), {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: JSON.stringify({ text }),
  });
  if (response.status !== 201) throw new Error(`POST nodes answered ${response.status}: ${await response.text()}`);
  await arrival;
  return arrivals.get(text)! - sentAt;
}

const mcp: number[] = [];
const http: number[] = [];
for (let index = 0; index < WARMUP + SAMPLES; index++) {
  // Alternated, so that both paths see the same machine, the same room size and the same warm caches.
  const viaMcp = await overMcp(`mcp note ${index}`);
  const viaHttp = await overHttp(`http note ${index}`);
  if (index >= WARMUP) {
    mcp.push(viaMcp);
    http.push(viaHttp);
  }
}
mcp.sort((a, b) => a - b);
http.sort((a, b) => a - b);

await client.close();
viewer.close();
await server.close();
await runtime.stop();
await database.destroy();

const mcpP99 = percentile(mcp, 99);
const httpP99 = percentile(http, 99);
console.log(
  JSON.stringify({
    mcp_to_viewer_p50_ms: round(percentile(mcp, 50)),
    mcp_to_viewer_p99_ms: round(mcpP99),
    http_to_viewer_p50_ms: round(percentile(http, 50)),
    http_to_viewer_p99_ms: round(httpP99),
    ratio_p99: round(mcpP99 / httpP99),
    samples: SAMPLES,
    driver: process.env.PARLEY_TEST_DRIVER,
  }),
);
process.exit(0);
