import { type ReadableSpan, type SpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { describe, expect, it } from "vitest";
import { storedEvent } from "@/test/builders";
import { EventIdGenerator, WorkflowSpans, spanIdOf, traceIdOf } from "./workflow-spans";

function setUp() {
  // Spans as they end, before any exporter: what the processor the export uses is handed.
  const ended: ReadableSpan[] = [];
  const collect: SpanProcessor = {
    onStart: () => {},
    onEnd: (span) => {
      ended.push(span);
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const exporter = { getFinishedSpans: () => ended };
  const ids = new EventIdGenerator();
  const provider = new TracerProvider({ idGenerator: ids, spanProcessors: [collect] });
  const spans = new WorkflowSpans(
    provider,
    ids,
    { modelOf: async () => "openai:gpt-test", rootOf: async (id) => ({ id, traceParent: null }) },
    { content: false },
  );
  return { exporter, spans };
}

const queued = storedEvent("seat.taken", { seatId: "s1", displayName: "Ada" }, { seq: 1, id: "root", causation_id: null });
const started = storedEvent(
  "run.started",
  { runId: "r1", agentId: "a1", attempt: 1, startedAt: "2030-01-01T00:00:00.000Z" },
  { seq: 2, id: "started", causation_id: "root" },
);

describe("spans from events", () => {
  it("makes each event a span under its cause's, in the trace of its root, with ids that follow from the events", async () => {
    const { exporter, spans } = setUp();
    spans.add(queued);
    spans.add(started);
    spans.add(
      storedEvent(
        "run.finished",
        {
          runId: "r1",
          agentId: "a1",
          status: "succeeded",
          steps: 0,
          attempts: 1,
          error: null,
          durationMs: 5,
          inputTokens: 0,
          outputTokens: 0,
          costUsd: 0,
        },
        { seq: 3, id: "finished", causation_id: "started" },
      ),
    );
    await spans.idle();
    const byName = new Map(exporter.getFinishedSpans().map((span) => [span.name, span]));
    const run = byName.get("invoke_agent Ada");
    expect(run?.spanContext()).toMatchObject({ traceId: traceIdOf("root"), spanId: spanIdOf("started") });
    expect(run?.parentSpanContext?.spanId).toBe(spanIdOf("root"));
    expect(run?.attributes).toMatchObject({
      "gen_ai.request.model": "gpt-test",
      "gen_ai.provider.name": "openai",
      "parley.run.status": "succeeded",
    });
    expect(byName.get("run.finished")?.parentSpanContext?.spanId).toBe(spanIdOf("started"));
  });

  it("sends a run still open when the export stops, marked unfinished", async () => {
    const { exporter, spans } = setUp();
    spans.add(queued);
    spans.add(started);
    await spans.idle();
    expect(exporter.getFinishedSpans().map((span) => span.name)).not.toContain("invoke_agent Ada");
    spans.endOpen();
    const run = exporter.getFinishedSpans().find((span) => span.name === "invoke_agent Ada");
    expect(run?.attributes["parley.unfinished"]).toBe(true);
  });
});
