import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runs } from "@/db/schema";
import { readEventsAfter } from "@/lib/events/read-events";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";

// The worker claims any room's runs, so this file keeps a database of its own.
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

/** Makes every new canvas note fail in the database, with an error that quotes the note's text. */
async function refuseNotes(): Promise<() => Promise<void>> {
  const name = `refuse_notes_${randomBytes(4).toString("hex")}`;
  await database.db.execute(
    sql.raw(
      `create function ${name}() returns trigger language plpgsql as 'begin raise exception ''cannot store % in room %'', new.text, new.room_id; end'`,
    ),
  );
  await database.db.execute(sql.raw(`create trigger ${name} before insert on canvas_nodes for each row execute function ${name}()`));
  return async () => {
    await database.db.execute(sql.raw(`drop trigger ${name} on canvas_nodes`));
    await database.db.execute(sql.raw(`drop function ${name}()`));
  };
}

describe("a tool that fails in the database during a run", () => {
  it("shows the room and the model a reference, not the statement, and the run goes on", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const allow = await refuseNotes();
    const { roomId } = await createTestRoom(database.db);
    const painter = await agentByPersona(database, roomId, "scene-painter");
    const worker = await startTestWorker(database);
    try {
      const run = await startAgentRun(database.db, roomId, { agentId: painter.id, prompt: "Paint the harbour at dawn." }, alice);
      await eventually(async () => {
        const [row] = await database.db.select({ status: runs.status }).from(runs).where(eq(runs.id, run.id));
        expect(row?.status).toBe("succeeded");
      }, 15_000);

      const steps = (await readEventsAfter(database.db, roomId, 0)).filter((event) => event.type === "run.step");
      const failed = steps.flatMap((event) => event.payload.toolResults).filter((result) => result.name === "create_node" && result.error);
      expect(failed.length).toBeGreaterThan(0);
      for (const result of failed) {
        expect(result.error).toMatch(/^create_node failed on the server \(reference [0-9a-f]{8}\)/);
        expect(result.error).not.toMatch(/canvas_nodes|insert|cannot store/i);
      }
      // The whole error is in the server's log, under the reference the room was shown.
      const reference = failed[0]!.error!.match(/reference ([0-9a-f]{8})/)![1]!;
      const entry = logged.mock.calls.find((args) => String(args[0]).includes(reference));
      expect(String(entry?.[0])).toContain("tool create_node failed");
      expect(String((entry?.[1] as Error | undefined)?.cause ?? entry?.[1])).toContain("cannot store");
    } finally {
      await worker.stop();
      await allow();
      logged.mockRestore();
    }
  });
});
