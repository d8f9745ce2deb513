// What a running agent's tools are given, built for tests that call tools directly.
// The workflow templates register what they add to the agent engine.
import "@/lib/workflows";
import type { Database } from "@/db";
import type { Agent, Run } from "@/db/schema";
import { PendingModelCalls } from "@/lib/agents/record-model-call";
import { type ActiveRun, agentAuthor } from "@/lib/agents/run-context";
import { resolveModel } from "@/lib/models/registry";
import { RoomBus } from "@/lib/realtime/bus";
import { DEFAULT_ROOM_SETTINGS, type RoomSettings } from "@/lib/rooms/room-settings";

/**
 * A database for code that must be handed one but, in the test at hand, never queries it:
 * any use of it fails the test.
 */
export function unusedDatabase(): Database {
  const refuse = (): never => {
    throw new Error("This test gave the code a database it was not meant to use.");
  };
  return {
    get db() {
      return refuse();
    },
    driver: "pglite",
    listen: async () => refuse(),
    close: async () => {},
  };
}

/**
 * One attempt of `run` by `agent`, at `step` (the first by default) with nothing spent yet, its
 * team's models resolved to the offline model at full speed. Build it again for the same run and
 * step to stand for an attempt that takes the step again after its worker died.
 */
export function activeRun(
  database: Database,
  parts: { run: Run; agent: Agent; team: Agent[]; settings?: Partial<RoomSettings>; step?: number },
): ActiveRun {
  return {
    database,
    bus: new RoomBus(database),
    run: parts.run,
    agent: parts.agent,
    team: parts.team,
    settings: { ...DEFAULT_ROOM_SETTINGS, ...parts.settings },
    author: agentAuthor(parts.agent),
    now: () => new Date(),
    modelCalls: new PendingModelCalls(parts.run.id, database),
    resolveModel: (spec) => resolveModel(spec, { scriptPaceMs: 0 }),
    state: {
      requestsMade: 0,
      helpRequested: 0,
      createdNodeIds: [],
      step: parts.step ?? 0,
      callsThisStep: new Map(),
      callsThisRun: new Map(),
      stop: null,
    },
  };
}
