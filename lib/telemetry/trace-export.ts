import { eq, sql } from "drizzle-orm";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from "@opentelemetry/sdk-trace";
import type { Database } from "@/db";
import { rowsOf } from "@/db/rows";
import { agents } from "@/db/schema";
import type { RoomBus } from "@/lib/realtime/bus";
import { EventIdGenerator, type SpanLookups, WorkflowSpans } from "./workflow-spans";

type EnvSource = Record<string, string | undefined>;

/** Whether the standard OpenTelemetry variables name somewhere to send traces. */
export function traceExportConfigured(env: EnvSource = process.env): boolean {
  return (
    Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) && env.OTEL_SDK_DISABLED !== "true"
  );
}

export interface TraceExport {
  /** Resolves once every event heard so far has its span and the spans are sent. */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/** Reads an agent's model and a cause chain's root from the log, off the write path. */
function databaseLookups(database: Database): SpanLookups {
  const models = new Map<string, string | null>();
  return {
    async modelOf(agentId) {
      if (!agentId) return null;
      if (models.has(agentId)) return models.get(agentId) ?? null;
      const [agent] = await database.db.select({ model: agents.model }).from(agents).where(eq(agents.id, agentId));
      const model = agent?.model ?? null;
      if (models.size > 10_000) models.clear();
      models.set(agentId, model);
      return model;
    },
    async rootOf(eventId) {
      const [root] = rowsOf<{ id: string; trace_parent: string | null }>(
        await database.db.execute(sql`
          with recursive chain(id, causation_id, trace_parent, depth) as (
            select id, causation_id, trace_parent, 0 from events where id = ${eventId}
            union all
            select events.id, events.causation_id, events.trace_parent, chain.depth + 1
            from events join chain on events.id = chain.causation_id
            where chain.depth < 10000
          )
          select id, trace_parent from chain order by depth desc limit 1`),
      );
      return root ? { id: root.id, traceParent: root.trace_parent } : null;
    },
  };
}

/**
 * Sends every workflow as an OpenTelemetry trace when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set; otherwise does nothing and returns null.
 * Spans are made from the events this instance hears of once they are committed, so the write
 * path does not wait for them; the exporter reads the other standard variables (headers,
 * timeout, `OTEL_SERVICE_NAME`). Prompts and outputs are sent only with `PARLEY_OTEL_CONTENT=1`.
 */
export function startTraceExport(
  database: Database,
  bus: RoomBus,
  options: { env?: EnvSource; exporter?: SpanExporter } = {},
): TraceExport | null {
  const env = options.env ?? process.env;
  if (!traceExportConfigured(env)) return null;
  const ids = new EventIdGenerator();
  const provider = new TracerProvider({
    idGenerator: ids,
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME?.trim() || "parley" }),
    spanProcessors: [new BatchSpanProcessor({ exporter: options.exporter ?? new OTLPTraceExporter() })],
  });
  const spans = new WorkflowSpans(provider, ids, databaseLookups(database), { content: env.PARLEY_OTEL_CONTENT === "1" });
  const unsubscribe = bus.subscribeAll((event) => spans.add(event));
  return {
    async flush() {
      await spans.idle();
      await provider.forceFlush();
    },
    async stop() {
      unsubscribe();
      await spans.idle();
      spans.endOpen();
      await provider.shutdown();
    },
  };
}
