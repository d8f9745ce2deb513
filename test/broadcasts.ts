import { eq } from "drizzle-orm";
import { beforeAll } from "vitest";
import type { Database } from "@/db";
import { type Broadcast, type BroadcastMode, type BroadcastStatus, agents, broadcasts, seats } from "@/db/schema";
import type { AskOthersDeps } from "@/lib/broadcast/ask-others";
import { createScriptModel } from "@/lib/models/script/script-model";
import { type ResolvedModel, resolveModel } from "@/lib/models/registry";
import { RoomBus } from "@/lib/realtime/bus";
import { agentByPersona } from "./agents";
import { useTestBus } from "./test-runtime";

/** Script models that take `latencyMs` to answer, by agent model spec `script:<name>@<latency>`. */
export function latencyResolver(spec: string): ResolvedModel {
  const match = spec.match(/^script:([a-z-]+)@(\d+)$/);
  if (!match) return resolveModel(spec, { scriptPaceMs: 0 });
  return {
    model: createScriptModel({ name: match[1]!, latencyMs: Number(match[2]) }),
    provider: "script",
    modelId: spec,
    spec,
    scripted: true,
  };
}

export async function setLatency(database: Database, agentId: string, latencyMs: number) {
  const [agent] = await database.db.select().from(agents).where(eq(agents.id, agentId));
  const name = agent!.model.replace(/^script:/, "").replace(/@\d+$/, "");
  await database.db
    .update(agents)
    .set({ model: `script:${name}@${latencyMs}` })
    .where(eq(agents.id, agentId));
}

export async function broadcastDeps(database: Database, resolver = latencyResolver): Promise<AskOthersDeps & { stop(): Promise<void> }> {
  const bus = new RoomBus(database);
  await bus.start();
  return { database, bus, resolveModel: resolver, pollMs: 100, stop: () => bus.stop() };
}

/**
 * A fresh database and ask_others' dependencies on it for one test file: call at the top of
 * the file, then use `context.database` and `context.deps` inside the tests.
 */
export function useBroadcastDeps() {
  const context = useTestBus() as ReturnType<typeof useTestBus> & { deps: AskOthersDeps };
  beforeAll(() => {
    context.deps = { database: context.database, bus: context.bus, resolveModel: latencyResolver, pollMs: 100 };
  });
  return context;
}

/** A question left behind as if its asker had stopped while waiting on it. */
export async function leaveQuestion(
  database: Database,
  roomId: string,
  persona: string,
  fields: { mode: BroadcastMode; status: BroadcastStatus; runId?: string | null; deadlineAt: Date | null },
): Promise<Broadcast> {
  const asker = await agentByPersona(database, roomId, persona);
  const [row] = await database.db
    .insert(broadcasts)
    .values({
      id: `left-${Math.random().toString(36).slice(2)}`,
      roomId,
      agentId: asker.id,
      agentName: asker.name,
      question: "Is anyone still there?",
      correlationId: "left-behind",
      ...fields,
    })
    .returning();
  return row!;
}

export async function broadcastStatus(database: Database, broadcastId: string): Promise<BroadcastStatus> {
  const [row] = await database.db.select({ status: broadcasts.status }).from(broadcasts).where(eq(broadcasts.id, broadcastId));
  return row!.status;
}

/** The room's open question once there is one (the one asking `question`, when given); fails if two are ever open at once. */
export async function waitForOpenQuestion(database: Database, roomId: string, timeoutMs = 10_000, question?: string) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = (await database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId))).filter((row) => row.status === "open");
    if (open.length > 1) throw new Error("More than one human question open at once");
    if (open[0] && (question === undefined || open[0].question === question)) return open[0];
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`No question${question ? ` "${question}"` : ""} opened in time`);
}

export async function testSeat(database: Database, roomId: string, name = "Ada") {
  const id = `seat-${Math.random().toString(36).slice(2)}`;
  const [seat] = await database.db.insert(seats).values({ id, roomId, displayName: name, tokenHash: id }).returning();
  return seat!;
}
