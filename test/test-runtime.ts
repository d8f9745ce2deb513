import type { Database } from "@/db";
import { RoomBus } from "@/lib/realtime/bus";
import { PresenceTracker } from "@/lib/realtime/presence";
import { type Runtime, setRuntime } from "@/lib/runtime";

/** Installs a runtime on a test database so route handlers can be called directly. */
export async function installTestRuntime(database: Database): Promise<Runtime & { stop(): Promise<void> }> {
  const bus = new RoomBus(database);
  await bus.start();
  const presence = new PresenceTracker(database, bus, { instanceId: "test-instance", announceDebounceMs: 10 });
  const runtime: Runtime = { instanceId: "test-instance", database, bus, presence, worker: null, scheduler: null };
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
