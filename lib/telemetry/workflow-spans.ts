import { createHash, randomBytes } from "node:crypto";
import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { IdGenerator, TracerProvider } from "@opentelemetry/sdk-trace";
import type { StoredEvent } from "@/lib/protocol";

/** What the span builder needs to know beyond the events: an agent's model, a trace's root. */
export interface SpanLookups {
  /** `provider:model` of an agent, or null when it is not known (a person, a removed agent). */
  modelOf(agentId: string): Promise<string | null>;
  /** The root of the cause chain `eventId` belongs to, and the trace context kept with it. */
  rootOf(eventId: string): Promise<{ id: string; traceParent: string | null } | null>;
}

export interface WorkflowSpansOptions {
  /** Prompts, outputs, tool arguments and results go into attributes only when set. */
  content: boolean;
}

/** A span's id from the event it stands for: the same event is the same span whoever exports it. */
export function spanIdOf(key: string): string {
  return createHash("sha256").update(`span:${key}`).digest("hex").slice(0, 16);
}

/** A trace's id from the root event of its cause tree. */
export function traceIdOf(rootEventId: string): string {
  return createHash("sha256").update(`trace:${rootEventId}`).digest("hex").slice(0, 32);
}

/**
 * Gives the span about to start the id its event determines; the SDK asks for ids while
 * `startSpan` runs, synchronously, so the next ids are set just before it.
 */
export class EventIdGenerator implements IdGenerator {
  next: { traceId: string; spanId: string } | null = null;

  generateTraceId(): string {
    return this.next?.traceId ?? randomBytes(16).toString("hex");
  }

  generateSpanId(): string {
    return this.next?.spanId ?? randomBytes(8).toString("hex");
  }
}

/** Spans that stay open from one event until a later one ends them (a run, a broadcast, a dialogue, the wait for people). */
const OPENS: Record<string, (event: StoredEvent) => string | null> = {
  "run.started": (event) => `run:${field(payloadOf(event), "runId")}`,
  "broadcast.asked": (event) => `broadcast:${field(record(payloadOf(event).broadcast), "id")}`,
  "dialogue.opened": (event) => `dialogue:${field(record(payloadOf(event).dialogue), "id")}`,
  "brainstorm.gate_opened": (event) => `gate:${field(payloadOf(event), "brainstormId")}`,
};
const CLOSES: Record<string, (event: StoredEvent) => string | null> = {
  "run.finished": (event) => `run:${field(payloadOf(event), "runId")}`,
  "broadcast.closed": (event) => `broadcast:${field(payloadOf(event), "broadcastId")}`,
  "dialogue.closed": (event) => `dialogue:${field(payloadOf(event), "dialogueId")}`,
  "brainstorm.gate_decided": (event) => `gate:${field(payloadOf(event), "brainstormId")}`,
  "brainstorm.completed": (event) => `gate:${field(payloadOf(event), "brainstormId")}`,
};

function payloadOf(event: StoredEvent): Record<string, unknown> {
  return event.payload;
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" ? (value as Record<string, unknown>) : {};
}

function field(value: Record<string, unknown>, name: string): string {
  const found = value[name];
  return typeof found === "string" || typeof found === "number" ? String(found) : "";
}

function numberField(value: Record<string, unknown>, name: string): number {
  const found = value[name];
  return typeof found === "number" && Number.isFinite(found) ? found : 0;
}

function providerOf(model: string | null): string {
  if (!model) return "unknown";
  const [provider] = model.split(":");
  return provider || "unknown";
}

function modelName(model: string | null): string {
  if (!model) return "unknown";
  const at = model.indexOf(":");
  return at < 0 ? model : model.slice(at + 1);
}

function textContent(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value ?? null);
}

/** How long open spans are remembered without their end (a run on another instance that died). */
const MAX_OPEN = 5000;
const MAX_KNOWN = 50_000;

/**
 * Builds OpenTelemetry spans from committed events, one span per event, its parent the span of
 * the event that caused it, so a workflow's trace is its cause tree: a run is a span from its
 * run.started to its run.finished; a model call (a run's step, a shadow's answer) a GenAI span
 * with its tokens and cost; a tool call a span under its model call; a broadcast, a dialogue and
 * the wait for people at a gate spans from their opening to their end. Events are handled in
 * the order they are given; spans carry the events' own times, not the export's.
 */
export class WorkflowSpans {
  private readonly tracer: Tracer;
  private readonly open = new Map<string, Span>();
  /** The trace of each event seen, so a child finds its trace without reading the log. */
  private readonly traces = new Map<string, string>();
  private chain: Promise<void> = Promise.resolve();

  constructor(
    provider: TracerProvider,
    private readonly ids: EventIdGenerator,
    private readonly lookups: SpanLookups,
    private readonly options: WorkflowSpansOptions,
  ) {
    this.tracer = provider.getTracer("parley.workflows");
  }

  /** Queues an event; spans are made in the order events are queued. */
  add(event: StoredEvent): void {
    this.chain = this.chain.then(() => this.handle(event)).catch((error) => console.error("[otel] could not make a span:", error));
  }

  /**
   * Ends the spans still open (a run this instance hears of still working as it stops) now,
   * marked unfinished, so they are sent rather than lost.
   */
  endOpen(at = Date.now()): void {
    for (const span of this.open.values()) {
      span.setAttribute("parley.unfinished", true);
      span.end(at);
    }
    this.open.clear();
  }

  /** Resolves once every queued event has its span. */
  idle(): Promise<void> {
    return this.chain;
  }

  private async traceOf(event: StoredEvent): Promise<{ traceId: string; parent: Context }> {
    const cause = event.causation_id ?? null;
    if (!cause) {
      const remote = event.trace_parent ? parseTraceparent(event.trace_parent) : null;
      if (remote) return { traceId: remote.traceId, parent: trace.setSpanContext(ROOT_CONTEXT, remote) };
      return { traceId: traceIdOf(event.id), parent: ROOT_CONTEXT };
    }
    let traceId = this.traces.get(cause);
    if (!traceId) {
      const root = await this.lookups.rootOf(cause);
      const remote = root?.traceParent ? parseTraceparent(root.traceParent) : null;
      traceId = remote?.traceId ?? traceIdOf(root?.id ?? cause);
    }
    const parent = trace.setSpanContext(ROOT_CONTEXT, {
      traceId,
      spanId: spanIdOf(cause),
      traceFlags: TraceFlags.SAMPLED,
      isRemote: false,
    });
    return { traceId, parent };
  }

  private start(
    key: string,
    traceId: string,
    name: string,
    parent: Context,
    at: number,
    attributes: Attributes,
    kind = SpanKind.INTERNAL,
  ): Span {
    this.ids.next = { traceId, spanId: spanIdOf(key) };
    try {
      return this.tracer.startSpan(name, { startTime: at, attributes, kind }, parent);
    } finally {
      this.ids.next = null;
    }
  }

  private remember(eventId: string, traceId: string): void {
    this.traces.set(eventId, traceId);
    if (this.traces.size > MAX_KNOWN) {
      const oldest = this.traces.keys().next().value;
      if (oldest !== undefined) this.traces.delete(oldest);
    }
  }

  private async handle(event: StoredEvent): Promise<void> {
    const { traceId, parent } = await this.traceOf(event);
    this.remember(event.id, traceId);
    const at = Date.parse(event.timestamp);
    const base: Attributes = {
      "parley.correlation_id": event.correlation_id,
      "parley.room_id": event.room_id,
      "parley.event.id": event.id,
      "parley.event.type": event.type,
      "parley.event.seq": event.seq,
      "parley.agent.id": event.agent,
      "parley.agent.name": event.agent_name,
    };

    const closing = CLOSES[event.type]?.(event);
    if (closing) this.close(closing, event, at);

    if (event.type === "run.step") {
      await this.modelCall(event, traceId, parent, at, base);
      return;
    }
    if (event.type === "broadcast.response") {
      await this.shadowAnswer(event, traceId, parent, at, base);
      return;
    }
    const opening = OPENS[event.type]?.(event);
    const span = this.start(event.id, traceId, spanName(event), parent, at, { ...base, ...(await this.attributesOf(event)) });
    if (opening) {
      const earlier = this.open.get(opening);
      // A run's next attempt ends the attempt before it (its worker died).
      earlier?.end(at);
      this.open.set(opening, span);
      if (this.open.size > MAX_OPEN) {
        const [oldestKey, oldest] = this.open.entries().next().value ?? [];
        if (oldestKey !== undefined) this.open.delete(oldestKey);
        oldest?.end(at);
      }
      return;
    }
    if (event.status === "error") span.setStatus({ code: SpanStatusCode.ERROR, message: event.error_details?.error_message });
    span.end(at);
  }

  private close(key: string, event: StoredEvent, at: number): void {
    const span = this.open.get(key);
    if (!span) return;
    this.open.delete(key);
    if (event.type === "run.finished") {
      span.setAttribute("parley.run.status", field(payloadOf(event), "status"));
      if (event.status === "error") span.setStatus({ code: SpanStatusCode.ERROR, message: event.error_details?.error_message });
    }
    if (event.type === "brainstorm.gate_decided") {
      span.setAttribute("parley.gate.decided_by", event.agent_name);
      span.setAttribute("parley.gate.action", field(record(payloadOf(event).decision), "action"));
    }
    span.end(at);
  }

  private async attributesOf(event: StoredEvent): Promise<Attributes> {
    const payload = payloadOf(event);
    switch (event.type) {
      case "run.started": {
        const model = await this.lookups.modelOf(field(payload, "agentId"));
        return {
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.agent.id": field(payload, "agentId"),
          "gen_ai.agent.name": event.agent_name,
          "gen_ai.request.model": modelName(model),
          "gen_ai.provider.name": providerOf(model),
          "gen_ai.system": providerOf(model),
          "parley.run.id": field(payload, "runId"),
          "parley.run.attempt": numberField(payload, "attempt"),
        };
      }
      case "run.queued": {
        const run = record(payload.run);
        return {
          "parley.run.id": field(run, "id"),
          "parley.run.trigger": field(run, "trigger"),
          ...(this.options.content
            ? { "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: field(run, "prompt") }] }]) }
            : {}),
        };
      }
      case "broadcast.asked": {
        const broadcast = record(payload.broadcast);
        return {
          "parley.broadcast.id": field(broadcast, "id"),
          ...(this.options.content ? { "parley.broadcast.question": field(broadcast, "question") } : {}),
        };
      }
      case "dialogue.opened":
        return { "parley.dialogue.id": field(record(payload.dialogue), "id") };
      case "brainstorm.gate_opened":
        return { "parley.brainstorm.id": field(payload, "brainstormId"), "parley.gate.round": numberField(payload, "round") };
      default:
        return {};
    }
  }

  private async modelCall(event: StoredEvent, traceId: string, parent: Context, at: number, base: Attributes): Promise<void> {
    const payload = payloadOf(event);
    const model = await this.lookups.modelOf(field(payload, "agentId"));
    const durationMs = numberField(payload, "durationMs");
    const start = at - durationMs;
    const span = this.start(
      event.id,
      traceId,
      `chat ${modelName(model)}`,
      parent,
      start,
      {
        ...base,
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": modelName(model),
        "gen_ai.provider.name": providerOf(model),
        "gen_ai.system": providerOf(model),
        "gen_ai.agent.id": field(payload, "agentId"),
        "gen_ai.usage.input_tokens": numberField(payload, "inputTokens"),
        "gen_ai.usage.output_tokens": numberField(payload, "outputTokens"),
        "parley.cost_usd": numberField(payload, "costUsd"),
        "parley.run.id": field(payload, "runId"),
        "parley.run.step": numberField(payload, "step"),
        ...(this.options.content
          ? {
              "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: field(payload, "text") }] }]),
            }
          : {}),
      },
      SpanKind.CLIENT,
    );
    const calls = Array.isArray(payload.toolCalls) ? payload.toolCalls.map(record) : [];
    const results = Array.isArray(payload.toolResults) ? payload.toolResults.map(record) : [];
    const inside = trace.setSpan(ROOT_CONTEXT, span);
    for (const call of calls) {
      const callId = field(call, "id");
      const result = results.find((candidate) => field(candidate, "id") === callId);
      const tool = this.start(`${event.id}:tool:${callId}`, traceId, `execute_tool ${field(call, "name")}`, inside, at, {
        "parley.correlation_id": event.correlation_id,
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": field(call, "name"),
        "gen_ai.tool.call.id": callId,
        ...(this.options.content
          ? {
              "gen_ai.tool.call.arguments": textContent(call.input),
              ...(result ? { "gen_ai.tool.call.result": textContent(result.output ?? result.error) } : {}),
            }
          : {}),
      });
      if (result && typeof result.error === "string") tool.setStatus({ code: SpanStatusCode.ERROR, message: result.error });
      tool.end(at);
    }
    span.end(at);
  }

  private async shadowAnswer(event: StoredEvent, traceId: string, parent: Context, at: number, base: Attributes): Promise<void> {
    const response = record(payloadOf(event).response);
    if (response.isHuman === true) {
      this.start(event.id, traceId, "broadcast.response", parent, at, {
        ...base,
        "parley.broadcast.id": field(response, "broadcastId"),
      }).end(at);
      return;
    }
    const model = await this.lookups.modelOf(field(response, "responderId"));
    this.start(
      event.id,
      traceId,
      `chat ${modelName(model)}`,
      parent,
      at - numberField(response, "durationMs"),
      {
        ...base,
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": modelName(model),
        "gen_ai.provider.name": providerOf(model),
        "gen_ai.system": providerOf(model),
        "gen_ai.agent.id": field(response, "responderId"),
        "gen_ai.usage.input_tokens": numberField(response, "inputTokens"),
        "gen_ai.usage.output_tokens": numberField(response, "outputTokens"),
        "parley.cost_usd": numberField(response, "costUsd"),
        "parley.broadcast.id": field(response, "broadcastId"),
        ...(this.options.content
          ? {
              "gen_ai.output.messages": JSON.stringify([
                { role: "assistant", parts: [{ type: "text", content: field(response, "content") }] },
              ]),
            }
          : {}),
      },
      SpanKind.CLIENT,
    ).end(at);
  }
}

function spanName(event: StoredEvent): string {
  switch (event.type) {
    case "run.started":
      return `invoke_agent ${event.agent_name}`;
    case "broadcast.asked":
      return "broadcast";
    case "dialogue.opened":
      return "dialogue";
    case "brainstorm.gate_opened":
      return "wait for people at the gate";
    default:
      return event.type;
  }
}

/** A W3C `traceparent` as the span context it names (the caller's span, the parent of Parley's root). */
function parseTraceparent(header: string): { traceId: string; spanId: string; traceFlags: number; isRemote: true } | null {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(header);
  if (!match?.[1] || !match[2] || !match[3]) return null;
  return { traceId: match[1], spanId: match[2], traceFlags: Number.parseInt(match[3], 16) | TraceFlags.SAMPLED, isRemote: true };
}
