// The workflow templates register what they add to the agent engine.
import "@/lib/workflows";
import { afterAll, beforeAll } from "vitest";
import type { Database } from "@/db";
import { SeatCache } from "@/lib/auth/seat-cache";
import { RoomBus } from "@/lib/realtime/bus";
import { PresenceTracker } from "@/lib/realtime/presence";
import { type Runtime, setRuntime } from "@/lib/runtime";
import { type TestDatabase, type TestDatabaseOptions, createTestDatabase } from "./test-database";

/** Installs a runtime on a test database so route handlers can be called directly. */
export async function installTestRuntime(database: Database): Promise<Runtime & { stop(): Promise<void> }> {
  const bus = new RoomBus(database);
  await bus.start();
  const presence = new PresenceTracker(database, bus, { instanceId: "test-instance", announceDebounceMs: 10 });
  const runtime: Runtime = { instanceId: "test-instance", database, bus, presence, seats: new SeatCache(), worker: null, scheduler: null };
  setRuntime(runtime);
  return {
    ...runtime,
    async stop() {
      presence.stop();
      await bus.stop();
      setRuntime(undefined);
    },
  };
}

export function jsonRequest(url: string, method: string, body?: unknown, headers: Record<string, string> = {}) {
  return new Request(`http://localhost${url}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

export function params<T extends Record<string, string>>(value: T) {
  return { params: Promise.resolve(value) };
}

/**
 * A fresh database with a runtime installed for one test file: call at the top of the
 * file, then use `context.database` and `context.runtime` inside the tests. With
 * `{ durable: true }`, `context.restart()` takes the runtime down, closes the database and
 * opens it again (see `TestDatabase.reopen`), as a server restart would; stop the file's
 * workers first.
 */
export function useTestRuntime(options: TestDatabaseOptions = {}) {
  const context = {} as {
    database: TestDatabase;
    runtime: Awaited<ReturnType<typeof installTestRuntime>>;
    restart(): Promise<void>;
  };
  context.restart = async () => {
    await context.runtime.stop();
    context.database = await context.database.reopen();
    context.runtime = await installTestRuntime(context.database);
  };
  beforeAll(async () => {
    context.database = await createTestDatabase(options);
    context.runtime = await installTestRuntime(context.database);
  });
  afterAll(async () => {
    await context.runtime.stop();
    await context.database.destroy();
  });
  return context;
}

/**
 * A fresh database and a started bus on it for one test file, without the rest of a runtime:
 * call at the top of the file, then use `context.database` and `context.bus` inside the tests.
 */
export function useTestBus() {
  const context = {} as { database: TestDatabase; bus: RoomBus };
  beforeAll(async () => {
    context.database = await createTestDatabase();
    context.bus = new RoomBus(context.database);
    await context.bus.start();
  });
  afterAll(async () => {
    await context.bus.stop();
    await context.database.destroy();
  });
  return context;
}

/**
 * A fresh database for one test file, with nothing started on it: call at the top of the file,
 * then use `context.database` inside the tests.
 */
export function useTestDatabase() {
  const context = {} as { database: TestDatabase };
  beforeAll(async () => {
    context.database = await createTestDatabase();
  });
  afterAll(async () => {
    await context.database.destroy();
  });
  return context;
}
