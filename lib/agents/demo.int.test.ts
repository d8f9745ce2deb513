import { and, eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { canvasNodes, events, rooms, runs } from "@/db/schema";
import { initialRoomState, nextTurn } from "@/components/room/room-state";
import type { PayloadOf } from "@/lib/protocol";
import { ensureDemoRoom } from "@/lib/rooms/ensure-demo-room";
import { getRoomSnapshot } from "@/lib/rooms/get-room-snapshot";
import { startTestWorker } from "@/test/agents";
import { eventually } from "@/test/fixtures";
import { useTestRuntime } from "@/test/test-runtime";
import { scheduleRoom } from "./scheduler";

const context = useTestRuntime();

/** Ten minutes of the demo room at its default pace, with the agents working at full speed. */
const MINUTES = 10;

describe("the demo room, watched for ten minutes", () => {
  it("has every persona working in the first five minutes, little repetition, no placeholders, and always says who is next", async () => {
    const { id: roomId } = await ensureDemoRoom(context.database.db);
    const [room] = await context.database.db.select().from(rooms).where(eq(rooms.id, roomId));
    const interval = (room!.settings as { scheduler_interval_seconds?: number }).scheduler_interval_seconds ?? 45;
    const worker = await startTestWorker(context.database);
    const ranBy: { minute: number; persona: string }[] = [];
    const predictions: { predicted: string; actual: string }[] = [];
    try {
      let predicted: string | null = null;
      for (let tick = 0; tick * interval < MINUTES * 60; tick++) {
        await context.database.db.update(rooms).set({ lastScheduledAt: null }).where(eq(rooms.id, roomId));
        const outcome = await scheduleRoom(context.database.db, roomId);
        if (outcome.kind === "random") {
          if (predicted) predictions.push({ predicted, actual: outcome.persona });
          ranBy.push({ minute: (tick * interval) / 60, persona: outcome.persona });
        }
        // Everything the turn set going (requests, help, answers) finishes before the next turn.
        await eventually(async () => {
          const active = await context.database.db.select({ id: runs.id }).from(runs).where(and(eq(runs.roomId, roomId), inArray(runs.status, ["queued", "running"])));
          expect(active).toHaveLength(0);
        }, 30_000);
        // What the page shows between turns: who is next.
        const snapshot = await getRoomSnapshot(context.database.db, roomId);
        const next = nextTurn(initialRoomState(snapshot, null));
        expect(next).not.toBeNull();
        predicted = next!.agent.persona;
      }
    } finally {
      await worker.stop();
    }

    // Every persona took a scheduled turn within the first five minutes.
    const early = new Set(ranBy.filter((turn) => turn.minute < 5).map((turn) => turn.persona));
    expect([...early].sort()).toEqual(["curator", "idea-weaver", "scene-painter", "songwriter", "storyteller"]);
    // The page's "next: …" named the persona the scheduler then started, every time.
    expect(predictions.filter((turn) => turn.predicted !== turn.actual)).toEqual([]);

    // Little repetition on the canvas, and nothing that reads as a placeholder.
    const nodes = await context.database.db.select({ text: canvasNodes.text }).from(canvasNodes).where(eq(canvasNodes.roomId, roomId));
    const texts = nodes.map((node) => node.text);
    const duplicates = texts.length - new Set(texts).size;
    console.log(`demo, ${MINUTES} minutes: ${ranBy.length} scheduled turns, ${texts.length} nodes, ${duplicates} duplicate texts (${((duplicates / texts.length) * 100).toFixed(1)}%)`);
    const counts = new Map<string, number>();
    for (const text of texts) counts.set(text, (counts.get(text) ?? 0) + 1);
    if (process.env.SHOW_DUPLICATES) console.log([...counts].filter(([, n]) => n > 1).map(([t, n]) => `${n}× ${t.slice(0, 90).replace(/\n/g, " / ")}`).join("\n"));
    expect(texts.length).toBeGreaterThan(20);
    expect(duplicates / texts.length).toBeLessThanOrEqual(0.1);
    const steps = await context.database.db.select({ payload: events.payload }).from(events).where(and(eq(events.roomId, roomId), eq(events.type, "run.step")));
    const written = [...texts, ...steps.map((row) => (row.payload as PayloadOf<"run.step">).text)];
    for (const text of written) expect(text).not.toMatch(/\(nothing at the moment\)|\(none\)|undefined|\[object Object\]/);

    // The task is the room's own; no run was handed a second subject beside it.
    const prompts = (await context.database.db.select({ prompt: runs.prompt, trigger: runs.trigger }).from(runs).where(eq(runs.roomId, roomId)))
      .filter((run) => run.trigger === "scheduler")
      .map((run) => run.prompt);
    for (const prompt of prompts) {
      expect(prompt).toMatch(/^Write a song about rain on a city window at night and paint the scene it describes\./);
      expect(prompt).not.toMatch(/lighthouse|leaving home/);
    }
  }, 180_000);
});
