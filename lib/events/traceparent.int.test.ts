import { randomUUID } from "node:crypto";
import { Role, type Task, TaskState } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { asc, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as a2aRoute from "@/app/api/rooms/[roomId]/agents/[agentId]/a2a/route";
import { POST as inviteRoute } from "@/app/api/rooms/[roomId]/external-agents/route";
import * as roomMcp from "@/app/api/rooms/[roomId]/mcp/route";
import { events } from "@/db/schema";
import { seatCookieName, takeSeat } from "@/lib/auth/seats";
import { textPart } from "@/lib/external/a2a/a2a-events";
import { inviteExternalAgent } from "@/lib/external/external-tokens";
import { RoomBus } from "@/lib/realtime/bus";
import { updateRoom } from "@/lib/rooms/update-room";
import { startTraceExport } from "@/lib/telemetry/trace-export";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { serveRoutes } from "@/test/app-route-server";
import { createTestRoom, eventually } from "@/test/fixtures";
import { call } from "@/test/http";
import { attribute, startReceiver } from "@/test/otlp-receiver";
import { useTestRuntime } from "@/test/test-runtime";
import { eventFromRow } from "./event-row";

const context = useTestRuntime();
const db = () => context.database.db;
const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const TRACEPARENT = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;
/** A trace id of all zeros is invalid: a caller sending it has no trace to join. */
const MALFORMED = `00-${"0".repeat(32)}-${CALLER_SPAN}-01`;

let server: Awaited<ReturnType<typeof serveRoutes>>;
let worker: Awaited<ReturnType<typeof startTestWorker>>;

beforeAll(async () => {
  server = await serveRoutes({
    app: {
      "/api/rooms/[roomId]/mcp": (request, route) => roomMcp.POST(request, route as never),
      "/api/rooms/[roomId]/agents/[agentId]/a2a": (request, route) => a2aRoute.POST(request, route as never),
    },
  });
  worker = await startTestWorker(context.database);
});
afterAll(async () => {
  await worker?.stop();
  await server?.close();
});
afterEach(() => {
  vi.unstubAllEnvs();
});

async function roomLog(roomId: string) {
  const rows = await db().select().from(events).where(eq(events.roomId, roomId)).orderBy(asc(events.seq));
  return rows.map(eventFromRow);
}

type LoggedEvent = Awaited<ReturnType<typeof roomLog>>[number];

/** Where `event`'s chain of causes ends. */
function rootOf(log: LoggedEvent[], event: LoggedEvent): LoggedEvent {
  let root = event;
  const seen = new Set<string>();
  while (root.causation_id) {
    if (seen.has(root.id)) throw new Error(`A cycle of causes at ${root.id}`);
    seen.add(root.id);
    const cause = log.find((each) => each.id === root.causation_id);
    if (!cause) throw new Error(`${root.type} names a cause not in the room`);
    root = cause;
  }
  return root;
}

/** The first event of `type` in the room and the root its chain of causes ends at. */
async function eventAndRoot(roomId: string, type: string) {
  const log = await roomLog(roomId);
  const event = log.find((each) => each.type === type);
  if (!event) throw new Error(`No ${type} event in the room`);
  return { event, root: rootOf(log, event), log };
}

/** Exports the room's events to an in-process OTLP receiver while `work` runs. */
async function exportingSpans(work: () => Promise<void>) {
  const receiver = await startReceiver();
  vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint);
  vi.stubEnv("PARLEY_OTEL_CONTENT", "");
  const bus = new RoomBus(context.database);
  await bus.start();
  const traces = startTraceExport(context.database, bus);
  expect(traces).not.toBeNull();
  try {
    await work();
    await traces?.flush();
    return receiver.spans;
  } finally {
    await traces?.stop();
    await bus.stop();
    await receiver.close();
  }
}

async function mcpClient(roomId: string, traceparent: string) {
  const { token } = await inviteExternalAgent(db(), roomId, { id: "admin", name: "Admin" }, { name: "Claude Code" });
  const client = new Client({ name: "parley-test-client", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(server.url(`/api/rooms/${roomId}/mcp`)), {
    requestInit: { headers: { Authorization: `Bearer ${token}`, traceparent } },
  });
  await client.connect(transport);
  return client;
}

async function createNoteOverMcp(roomId: string, traceparent: string) {
  const client = await mcpClient(roomId, traceparent);
  try {
    const result = await client.callTool({ name: "create_note", arguments: { text: "A verse about tides" } });
    expect(result.isError).not.toBe(true);
    const [first] = result.content as { text: string }[];
    return (JSON.parse(first!.text) as { note: { id: string } }).note;
  } finally {
    await client.close();
  }
}

/** A room whose agents answer over A2A, and a client whose every request carries `traceparent`. */
async function a2aClient(traceparent: string) {
  const { roomId } = await createTestRoom(db());
  await updateRoom(db(), roomId, { settings: { a2a_agents: true } });
  const songwriter = await agentByPersona(context.database, roomId, "songwriter");
  const { token } = await inviteExternalAgent(db(), roomId, { id: "admin", name: "Admin" }, { name: "Partner System" });
  const tracedFetch: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("traceparent", traceparent);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: tracedFetch })],
    }),
  );
  const client = await factory.createFromUrl(server.url(`/api/rooms/${roomId}/agents/${songwriter.id}/a2a`), "");
  const ask = async (text: string) => {
    const result = await client.sendMessage(
      {
        tenant: "",
        message: {
          messageId: randomUUID(),
          contextId: "",
          taskId: "",
          role: Role.ROLE_USER,
          parts: [textPart(text)],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        },
        configuration: undefined,
        metadata: undefined,
      },
      { serviceParameters: { Authorization: `Bearer ${token}` } },
    );
    expect("messageId" in result).toBe(false);
    return result as Task;
  };
  return { roomId, ask };
}

describe("a caller's traceparent", () => {
  it("joins the events an outside agent's MCP call writes, and their exported spans, to the caller's trace", async () => {
    const { roomId } = await createTestRoom(db());
    let noteId = "";
    const spans = await exportingSpans(async () => {
      noteId = (await createNoteOverMcp(roomId, TRACEPARENT)).id;
    });
    const { event, root, log } = await eventAndRoot(roomId, "node.created");
    expect(event.payload).toMatchObject({ node: { id: noteId } });
    expect(root).toMatchObject({ id: event.id, causation_id: null, trace_parent: TRACEPARENT });
    // Only the root carries it; the invitation, written outside the call, does not.
    expect(log.filter((each) => each.trace_parent).map((each) => each.id)).toEqual([event.id]);
    const span = spans.find((each) => attribute(each, "parley.event.id") === event.id);
    expect(span).toMatchObject({ name: "node.created", traceId: CALLER_TRACE, parentSpanId: CALLER_SPAN });
  });

  it("over MCP, is ignored when malformed: the call succeeds and its events start their own trace", async () => {
    const { roomId } = await createTestRoom(db());
    await createNoteOverMcp(roomId, MALFORMED);
    const { event, root, log } = await eventAndRoot(roomId, "node.created");
    expect(root).toMatchObject({ id: event.id, causation_id: null });
    expect(log.filter((each) => each.trace_parent)).toEqual([]);
  });

  it("joins the events an A2A client's message writes, its help request to the answer, to the caller's trace", async () => {
    let roomId = "";
    const spans = await exportingSpans(async () => {
      const a2a = await a2aClient(TRACEPARENT);
      roomId = a2a.roomId;
      const task = await a2a.ask("What should the chorus be about?");
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      // The answer is written by the agent worker; wait for its events to be exported too.
      await eventually(async () => expect((await roomLog(roomId)).some((each) => each.type === "help.answered")).toBe(true));
    });
    const asked = await eventAndRoot(roomId, "board.posted");
    expect(asked.root).toMatchObject({ causation_id: null, trace_parent: TRACEPARENT });
    const answered = await eventAndRoot(roomId, "help.answered");
    expect(answered.root.id).toBe(asked.root.id);
    const spanOf = (id: string) => spans.find((each) => attribute(each, "parley.event.id") === id);
    expect(spanOf(asked.root.id)).toMatchObject({ traceId: CALLER_TRACE, parentSpanId: CALLER_SPAN });
    expect(spanOf(answered.event.id)).toMatchObject({ name: "help.answered", traceId: CALLER_TRACE });
    // Everything the message caused is in the caller's trace; the room's creation is a trace of its own.
    const caused = new Set(asked.log.filter((each) => rootOf(asked.log, each).id === asked.root.id).map((each) => each.id));
    expect(caused.size).toBeGreaterThan(2);
    const tree = spans.filter((each) => caused.has(String(attribute(each, "parley.event.id"))));
    expect(tree.length).toBe(caused.size);
    for (const span of tree) expect(span.traceId).toBe(CALLER_TRACE);
    const [first] = asked.log;
    expect(first && rootOf(asked.log, first).id).not.toBe(asked.root.id);
    expect(spanOf(first?.id ?? "")?.traceId).toMatch(/^(?!4bf92f3577b34da6a3ce929d0e0e4736)[0-9a-f]{32}$/);
  });

  it("over A2A, is ignored when malformed: the message is answered and its events start their own trace", async () => {
    const a2a = await a2aClient(MALFORMED);
    const task = await a2a.ask("What should the chorus be about?");
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const asked = await eventAndRoot(a2a.roomId, "board.posted");
    expect(asked.root).toMatchObject({ causation_id: null });
    expect(asked.log.filter((each) => each.trace_parent)).toEqual([]);
  });

  it("joins the events an API route writes to the caller's trace, and a malformed one is ignored", async () => {
    const { roomId } = await createTestRoom(db());
    const { token } = await takeSeat(db(), roomId, { displayName: "Ada" });
    const cookie = `${seatCookieName(roomId)}=${token}`;
    const invite = (name: string, traceparent: string) =>
      call(inviteRoute, { url: "/x", method: "POST", params: { roomId }, body: { name }, cookie, headers: { traceparent } });
    expect((await invite("Claude Code", TRACEPARENT)).status).toBe(201);
    expect((await invite("Cursor", MALFORMED)).status).toBe(201);
    const joined = (await roomLog(roomId)).filter((each) => each.type === "agent.joined");
    expect(joined.map((each) => [each.payload, each.causation_id ?? null, each.trace_parent])).toEqual([
      [expect.objectContaining({ agent: expect.objectContaining({ name: "Claude Code" }) }), null, TRACEPARENT],
      [expect.objectContaining({ agent: expect.objectContaining({ name: "Cursor" }) }), null, undefined],
    ]);
  });
});
