import { and, asc, eq, like } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type ShownNote, agentNotes, canvasNodes, events, runs } from "@/db/schema";
import { takeNotes } from "@/lib/broadcast/agent-notes";
import type { PayloadOf } from "@/lib/protocol";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { testSeat } from "@/test/broadcasts";
import { createTestRoom, eventually } from "@/test/fixtures";
import { useTwoInstances } from "@/test/two-instances";
import { sendCommand } from "./send-command";

const context = useTwoInstances();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The ids of the room's messages in the order they were sent, and in the order they were delivered. */
async function sentAndDelivered(roomId: string) {
  const rows = await context.database.db
    .select({ type: events.type, payload: events.payload })
    .from(events)
    .where(eq(events.roomId, roomId))
    .orderBy(asc(events.seq));
  const sent = rows.filter((row) => row.type === "command.sent").map((row) => (row.payload as PayloadOf<"command.sent">).command.id);
  const deliveries = rows.filter((row) => row.type === "command.delivered").map((row) => row.payload as PayloadOf<"command.delivered">);
  return { sent, deliveries, delivered: deliveries.flatMap((delivery) => delivery.commandIds) };
}

describe("participants' messages across two app instances (PostgreSQL)", () => {
  it("are each taken once, in the order they were sent, by two readers on two instances racing the senders", async () => {
    const { roomId } = await createTestRoom(context.database.db, { commands_per_minute: 600 });
    const seat = await testSeat(context.database, roomId);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const PER_INSTANCE = 20;

    // Each instance sends half the messages while both take them for the agent: the same run on two instances,
    // as when a run is taken over while the worker that lost it still takes a step.
    let sending = true;
    const senders = context.instances.map(async (instance, index) => {
      for (let count = 0; count < PER_INSTANCE; count++) await sendCommand(instance.db, roomId, seat, `@Songwriter line ${index}-${count}`);
    });
    const taken: ShownNote[][] = [[], []];
    const readers = context.instances.map(async (instance, index) => {
      for (let step = 0; ; step++) {
        const done = !sending;
        const notes = await takeNotes(instance.db, {
          roomId,
          agentId: songwriter.id,
          agentName: songwriter.name,
          runId: `reader-${index}`,
          step,
        });
        taken[index]!.push(...notes);
        if (done && notes.length === 0) return;
      }
    });
    await Promise.all(senders);
    sending = false;
    await Promise.all(readers);

    const { sent, deliveries, delivered } = await sentAndDelivered(roomId);
    expect(sent).toHaveLength(2 * PER_INSTANCE);
    // Once each: nothing taken twice, nothing left behind.
    const all = [...taken[0]!, ...taken[1]!].map((note) => note.id);
    expect(all).toHaveLength(sent.length);
    expect(new Set(all)).toEqual(new Set(sent));
    expect(delivered).toEqual(sent);
    // Each reader got its share oldest first, and the room's record says who took what.
    for (const [index, notes] of taken.entries()) {
      const ids = notes.map((note) => note.id);
      expect(ids).toEqual(sent.filter((id) => ids.includes(id)));
      for (const delivery of deliveries.filter((candidate) => candidate.runId === `reader-${index}`)) {
        expect(delivery.commandIds.every((id) => ids.includes(id))).toBe(true);
      }
    }
    const rows = await context.database.db.select().from(agentNotes).where(eq(agentNotes.agentId, songwriter.id));
    for (const row of rows) expect(row.deliveredToRunId).toBe(taken[0]!.some((note) => note.id === row.id) ? "reader-0" : "reader-1");
  });

  it("reach the agent once each, in order, while two workers on two instances run it", async () => {
    const { roomId } = await createTestRoom(context.database.db, { commands_per_minute: 600 });
    const seat = await testSeat(context.database, roomId, "Ada");
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const workers = await Promise.all(context.instances.map((instance) => startTestWorker(instance)));
    const LINES = 6;
    try {
      // Sent from both instances in turn while the agent works: some reach a running run's next step, some its
      // queued run, some a run of their own.
      for (let line = 0; line < LINES; line++) {
        await sendCommand(context.instances[line % 2]!.db, roomId, seat, `@Songwriter line ${line}`);
        await sleep(40);
      }
      await eventually(async () => {
        const active = (await context.database.db.select({ status: runs.status }).from(runs).where(eq(runs.roomId, roomId))).filter(
          (run) => run.status === "queued" || run.status === "running",
        );
        expect(active).toEqual([]);
        expect((await sentAndDelivered(roomId)).delivered).toHaveLength(LINES);
      }, 30_000);
    } finally {
      for (const worker of workers) await worker.stop();
    }

    const { sent, delivered } = await sentAndDelivered(roomId);
    expect(delivered).toEqual(sent);
    const acted = await context.database.db
      .select({ text: canvasNodes.text })
      .from(canvasNodes)
      .where(and(eq(canvasNodes.roomId, roomId), like(canvasNodes.text, "As Ada asked — %")));
    for (let line = 0; line < LINES; line++) {
      expect(acted.filter((node) => node.text.startsWith(`As Ada asked — “line ${line}”`))).toHaveLength(1);
    }
    const runsOfAgent = await context.database.db.select().from(runs).where(eq(runs.agentId, songwriter.id));
    expect(runsOfAgent.every((run) => run.status === "succeeded")).toBe(true);
  });
});
