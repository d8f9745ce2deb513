import fs from "node:fs";
import path from "node:path";
import { and, eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { boardEntries, broadcastResponses, broadcasts, canvasNodes, events, runs } from "@/db/schema";
import { scheduleRoom } from "@/lib/agents/scheduler";
import { takeSeat } from "@/lib/auth/seats";
import { sendCommand } from "@/lib/commands/send-command";
import type { PayloadOf } from "@/lib/protocol";
import { startTestWorker } from "@/test/agents";
import { eventually } from "@/test/fixtures";
import { creativeWordsIn } from "@/test/off-task";
import { useTestRuntime } from "@/test/test-runtime";
import { rooms } from "@/db/schema";
import { importRoom } from "./import-room";

const context = useTestRuntime();

const fixture = (name: string) => fs.readFileSync(path.join(process.cwd(), "lib/rooms/fixtures", name), "utf8");

/** Words of the team's task ("Build a web scraper for product prices"). */
const TASK_WORDS = /\b(web|scraper|product|prices)\b/i;

describe("an imported team on the offline model", () => {
  it("asks, answers, helps and writes about its own task, never about verses, scenes or moods", async () => {
    const { room, agents } = await importRoom(context.database.db, { yaml: fixture("scraper-team.yaml"), offline: true });
    expect(agents.map((agent) => agent.model)).toEqual(["script:planner", "script:fetcher", "script:checker"]);
    const db = context.database.db;
    const settle = () =>
      eventually(async () => {
        const active = await db
          .select({ id: runs.id })
          .from(runs)
          .where(and(eq(runs.roomId, room.id), inArray(runs.status, ["queued", "running"])));
        expect(active).toHaveLength(0);
      }, 30_000);
    const helpAnswered = async () =>
      (
        await db
          .select({ payload: events.payload })
          .from(events)
          .where(and(eq(events.roomId, room.id), eq(events.type, "help.answered")))
      )
        .map((row) => row.payload as PayloadOf<"help.answered">)
        .some((payload) => payload.answered);
    const worker = await startTestWorker(context.database);
    try {
      // Who runs, and whether a run asks a teammate for help, is the offline model's own
      // seeded choice: take turns until a help request has been answered, at least six.
      for (let turn = 0; turn < 6 || (turn < 24 && !(await helpAnswered())); turn++) {
        await db.update(rooms).set({ lastScheduledAt: null }).where(eq(rooms.id, room.id));
        expect((await scheduleRoom(db, room.id)).kind).toBe("random");
        await settle();
      }
      const { seat } = await takeSeat(db, room.id, { displayName: "Ada" });
      await sendCommand(db, room.id, seat, "@fetcher add a retry when a page times out");
      await settle();
    } finally {
      await worker.stop();
    }

    const nodes = await db
      .select({ text: canvasNodes.text, kind: canvasNodes.kind })
      .from(canvasNodes)
      .where(eq(canvasNodes.roomId, room.id));
    const asked = await db.select().from(broadcasts).where(eq(broadcasts.roomId, room.id));
    const answers = await db
      .select({ content: broadcastResponses.content })
      .from(broadcastResponses)
      .where(
        inArray(
          broadcastResponses.broadcastId,
          asked.map((row) => row.id),
        ),
      );
    const help = (
      await db
        .select({ payload: events.payload })
        .from(events)
        .where(and(eq(events.roomId, room.id), eq(events.type, "help.answered")))
    )
      .map((row) => row.payload as PayloadOf<"help.answered">)
      .filter((payload) => payload.answered);
    const board = await db.select({ content: boardEntries.content }).from(boardEntries).where(eq(boardEntries.roomId, room.id));
    const steps = (
      await db
        .select({ payload: events.payload })
        .from(events)
        .where(and(eq(events.roomId, room.id), eq(events.type, "run.step")))
    ).map((row) => (row.payload as PayloadOf<"run.step">).text);

    // Every kind of thing the team says happened, and each is about the task.
    expect(nodes.length).toBeGreaterThanOrEqual(6);
    expect(nodes.some((node) => node.text.startsWith("As Ada asked — “add a retry when a page times out”"))).toBe(true);
    expect(asked.length).toBeGreaterThan(0);
    expect(answers.length).toBeGreaterThan(0);
    expect(help.length).toBeGreaterThan(0);
    for (const text of [
      ...nodes.map((node) => node.text),
      ...asked.map((row) => row.question),
      ...answers.map((row) => row.content),
      ...help.map((row) => row.text),
    ]) {
      expect(text).toMatch(TASK_WORDS);
    }
    expect(nodes.every((node) => node.kind === "note")).toBe(true);

    // Nothing anywhere borrows the creative canvas's craft.
    const written = [
      ...nodes.map((node) => node.text),
      ...asked.flatMap((row) => [row.question, ...row.options]),
      ...answers.map((row) => row.content),
      ...help.map((row) => row.text),
      ...board.map((row) => JSON.stringify(row.content)),
      ...steps,
    ];
    expect(written.flatMap(creativeWordsIn)).toEqual([]);
  }, 120_000);
});
