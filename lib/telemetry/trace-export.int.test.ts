import { and, eq, inArray } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { POST as startReviewRoute } from "@/app/api/rooms/[roomId]/build-reviews/route";
import { POST as startRunRoute } from "@/app/api/rooms/[roomId]/runs/route";
import { POST as takeSeat } from "@/app/api/rooms/[roomId]/seat/route";
import { buildReviews, runs } from "@/db/schema";
import { RoomBus } from "@/lib/realtime/bus";
import { createRoom } from "@/lib/rooms/create-room";
import { readWorkflow } from "@/lib/workflows/read-workflow";
import { startTestWorker } from "@/test/agents";
import { eventually } from "@/test/fixtures";
import { call, cookieFrom } from "@/test/http";
import { attribute, startReceiver } from "@/test/otlp-receiver";
import { useTestRuntime } from "@/test/test-runtime";
import { startTraceExport, traceExportConfigured } from "./trace-export";

const context = useTestRuntime();
afterEach(() => {
  vi.unstubAllEnvs();
});

const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

async function seatIn(roomId: string) {
  const seat = await call(takeSeat, { url: "/x", method: "POST", params: { roomId }, body: { displayName: "Ada" } });
  return cookieFrom(seat.headers.get("set-cookie"));
}

async function quiet(roomId: string) {
  await eventually(async () => {
    const active = await context.database.db
      .select({ id: runs.id })
      .from(runs)
      .where(and(eq(runs.roomId, roomId), inArray(runs.status, ["queued", "running"])));
    expect(active).toHaveLength(0);
  }, 30_000);
}

async function exporting(endpoint: string | null, content = false) {
  if (endpoint) vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint);
  vi.stubEnv("PARLEY_OTEL_CONTENT", content ? "1" : "");
  const bus = new RoomBus(context.database);
  await bus.start();
  const traces = startTraceExport(context.database, bus);
  return {
    traces,
    async stop() {
      await traces?.stop();
      await bus.stop();
    },
  };
}

describe("OpenTelemetry export", () => {
  it("sends a build review as one trace joined to the caller's, its spans the cause tree, tokens and cost summing to the workflow's", async () => {
    const receiver = await startReceiver();
    const exported = await exporting(receiver.endpoint);
    const worker = await startTestWorker(context.database);
    try {
      expect(exported.traces).not.toBeNull();
      const { room } = await createRoom(context.database.db, { title: "Review", template: "build-review" });
      const cookie = await seatIn(room.id);
      const started = await call(startReviewRoute, {
        url: "/x",
        method: "POST",
        params: { roomId: room.id },
        body: { task: "Write a function that counts the words in a sentence" },
        cookie,
        headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
      });
      expect(started.status).toBe(201);
      const review = await eventually(async () => {
        const [row] = await context.database.db.select().from(buildReviews).where(eq(buildReviews.roomId, room.id));
        expect(["approved", "not_approved"]).toContain(row!.status);
        return row!;
      }, 30_000);
      await quiet(room.id);
      await exported.traces?.flush();

      const workflow = receiver.spans.filter((span) => attribute(span, "parley.correlation_id") === review.correlationId);
      expect(workflow.length).toBeGreaterThan(10);
      // One trace, the caller's.
      expect(new Set(workflow.map((span) => span.traceId))).toEqual(new Set([CALLER_TRACE]));
      const inTrace = receiver.spans.filter((span) => span.traceId === CALLER_TRACE);
      const ids = new Set(inTrace.map((span) => span.spanId));
      // One tree: the root's parent is the caller's span, every other span's parent is in the trace.
      const roots = inTrace.filter((span) => !span.parentSpanId || !ids.has(span.parentSpanId));
      expect(roots).toHaveLength(1);
      expect(roots[0]).toMatchObject({ name: "review.started", parentSpanId: CALLER_SPAN });
      // A span per run, per model call and per tool call, in the GenAI conventions.
      const agentSpans = inTrace.filter((span) => attribute(span, "gen_ai.operation.name") === "invoke_agent");
      const modelCalls = inTrace.filter((span) => attribute(span, "gen_ai.operation.name") === "chat");
      const toolCalls = inTrace.filter((span) => attribute(span, "gen_ai.operation.name") === "execute_tool");
      expect(agentSpans.length).toBeGreaterThan(2);
      expect(modelCalls.length).toBeGreaterThanOrEqual(agentSpans.length);
      expect(toolCalls.length).toBeGreaterThan(0);
      for (const span of modelCalls) {
        expect(attribute(span, "gen_ai.request.model")).toEqual(expect.any(String));
        expect(attribute(span, "gen_ai.provider.name")).toBe("script");
        // Each model call is inside its run's span.
        expect(agentSpans.map((run) => run.spanId)).toContain(span.parentSpanId);
      }
      for (const span of toolCalls) expect(modelCalls.map((model) => model.spanId)).toContain(span.parentSpanId);
      for (const span of agentSpans) expect(BigInt(span.endTimeUnixNano)).toBeGreaterThan(BigInt(span.startTimeUnixNano));
      const sum = (key: string) => inTrace.reduce((total, span) => total + Number(attribute(span, key) ?? 0), 0);
      const totals = await readWorkflow(context.database.db, room.id, review.correlationId);
      expect(totals.inputTokens).toBeGreaterThan(0);
      expect(sum("gen_ai.usage.input_tokens")).toBe(totals.inputTokens);
      expect(sum("gen_ai.usage.output_tokens")).toBe(totals.outputTokens);
      expect(sum("parley.cost_usd")).toBeCloseTo(totals.costUsd, 9);
      // Without the content setting, no prompt, output or tool argument leaves Parley.
      for (const span of inTrace) {
        for (const key of ["gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"]) {
          expect(attribute(span, key)).toBeUndefined();
        }
      }
    } finally {
      await worker.stop();
      await exported.stop();
      await receiver.close();
    }
  });

  it("sends prompts, outputs and tool arguments only with PARLEY_OTEL_CONTENT=1, and a request without a traceparent starts its own trace", async () => {
    const receiver = await startReceiver();
    const exported = await exporting(receiver.endpoint, true);
    const worker = await startTestWorker(context.database);
    try {
      const { room, agents } = await createRoom(context.database.db, { title: "Canvas", template: "creative-canvas" });
      const cookie = await seatIn(room.id);
      const started = await call(startRunRoute, {
        url: "/x",
        method: "POST",
        params: { roomId: room.id },
        body: { agentId: agents[0]!.id, prompt: "Sketch three ideas for a song about rain" },
        cookie,
      });
      expect(started.status).toBe(201);
      await quiet(room.id);
      await exported.traces?.flush();
      const queued = receiver.spans.find((span) => span.name === "run.queued");
      expect(queued).toBeDefined();
      expect(queued?.traceId).not.toBe(CALLER_TRACE);
      expect(queued?.parentSpanId ?? "").toBe("");
      expect(String(attribute(queued!, "gen_ai.input.messages"))).toContain("song about rain");
      const modelCall = receiver.spans.find((span) => attribute(span, "gen_ai.operation.name") === "chat");
      expect(attribute(modelCall!, "gen_ai.output.messages")).toEqual(expect.stringContaining("assistant"));
      const tool = receiver.spans.find((span) => attribute(span, "gen_ai.operation.name") === "execute_tool");
      if (tool) expect(attribute(tool, "gen_ai.tool.call.arguments")).toEqual(expect.any(String));
      // The room's creation and the seat are traces of their own; the run's work is one.
      const correlation = attribute(queued!, "parley.correlation_id");
      const run = receiver.spans.filter((span) => attribute(span, "parley.correlation_id") === correlation);
      expect(run.length).toBeGreaterThan(3);
      expect(new Set(run.map((span) => span.traceId))).toEqual(new Set([queued?.traceId]));
    } finally {
      await worker.stop();
      await exported.stop();
      await receiver.close();
    }
  });

  it("exports nothing when no endpoint is set", async () => {
    const receiver = await startReceiver();
    vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", "");
    vi.stubEnv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "");
    expect(traceExportConfigured()).toBe(false);
    expect(traceExportConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SDK_DISABLED: "true" })).toBe(false);
    const exported = await exporting(null);
    const worker = await startTestWorker(context.database);
    try {
      expect(exported.traces).toBeNull();
      const { room, agents } = await createRoom(context.database.db, { title: "Canvas", template: "creative-canvas" });
      const cookie = await seatIn(room.id);
      const started = await call(startRunRoute, {
        url: "/x",
        method: "POST",
        params: { roomId: room.id },
        body: { agentId: agents[0]!.id, prompt: "Sketch an idea" },
        cookie,
      });
      expect(started.status).toBe(201);
      await quiet(room.id);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(receiver.requests()).toBe(0);
    } finally {
      await worker.stop();
      await exported.stop();
      await receiver.close();
    }
  });
});
