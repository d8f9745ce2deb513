import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boardEntries, canvasEdges, canvasNodes, runs } from "@/db/schema";
import { readEventsAfter } from "@/lib/events/read-events";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { startAgentRun } from "./start-agent-run";

let database: TestDatabase;
let worker: Awaited<ReturnType<typeof startTestWorker>>;

beforeAll(async () => {
  database = await createTestDatabase();
  worker = await startTestWorker(database);
});
afterAll(async () => {
  await worker.stop();
  await database.destroy();
});

describe("Songwriter → request_agent → Scene Painter → reaction", () => {
  it("runs the whole chain on the offline model and records every step", async () => {
    const { roomId } = await createTestRoom(database.db);
    const songwriter = await agentByPersona(database, roomId, "songwriter");
    const painter = await agentByPersona(database, roomId, "scene-painter");
    const started = await startAgentRun(
      database.db,
      roomId,
      { agentId: songwriter.id, prompt: "Write a short verse about rain on a city window at night." },
      alice,
    );

    await eventually(async () => {
      const all = await database.db.select().from(runs).where(eq(runs.roomId, roomId));
      expect(all).toHaveLength(2);
      expect(all.every((run) => run.status === "succeeded")).toBe(true);
    }, 20_000);

    const all = await database.db.select().from(runs).where(eq(runs.roomId, roomId));
    const first = all.find((run) => run.id === started.id)!;
    const second = all.find((run) => run.agentId === painter.id)!;
    expect(second.parentRunId).toBe(first.id);
    expect(second.trigger).toBe("request");
    expect(second.chainDepth).toBe(1);
    expect(second.correlationId).toBe(first.correlationId);

    const nodes = await database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId));
    const lyrics = nodes.filter((node) => node.kind === "lyric" && node.authorId === songwriter.id);
    const scenes = nodes.filter((node) => node.kind === "scene" && node.authorId === painter.id);
    expect(lyrics.length).toBeGreaterThanOrEqual(2);
    expect(scenes.length).toBeGreaterThanOrEqual(1);
    expect(lyrics.some((lyric) => lyric.text.startsWith("Verse\n"))).toBe(true);
    expect(lyrics.some((lyric) => lyric.text.startsWith("Chorus\n"))).toBe(true);
    expect(second.selectedNodeIds.sort()).toEqual(lyrics.map((node) => node.id).sort());

    const edges = await database.db.select().from(canvasEdges).where(eq(canvasEdges.roomId, roomId));
    const illustrates = edges.filter((edge) => edge.label === "illustrates");
    expect(illustrates.length).toBeGreaterThanOrEqual(1);
    expect(scenes.map((scene) => scene.id)).toContain(illustrates[0]!.sourceId);
    expect(lyrics.map((lyric) => lyric.id)).toContain(illustrates[0]!.targetId);

    const board = await database.db.select().from(boardEntries).where(eq(boardEntries.roomId, roomId));
    const kinds = (agentId: string) => board.filter((entry) => entry.agentId === agentId).map((entry) => entry.kind);
    expect(kinds(songwriter.id)).toEqual(expect.arrayContaining(["intention", "contribution", "request"]));
    expect(kinds(painter.id)).toEqual(expect.arrayContaining(["intention", "reaction"]));
    const request = board.find((entry) => entry.kind === "request")!;
    expect(request.targetPersona).toBe("scene-painter");
    expect(request.requestStatus).toBe("answered");
    const reaction = board.find((entry) => entry.kind === "reaction")!;
    const contribution = board.find((entry) => entry.kind === "contribution" && entry.agentId === songwriter.id)!;
    expect(reaction.answersEntryId).toBe(contribution.id);

    const events = await readEventsAfter(database.db, roomId, 0, 1000);
    const steps = events.filter((event) => event.type === "run.step");
    expect(steps.length).toBeGreaterThanOrEqual(8);
    for (const step of steps) {
      expect(step.correlation_id).toBe(first.correlationId);
      const payload = step.payload as { durationMs: number; inputTokens: number; outputTokens: number; costUsd: number };
      expect(payload.inputTokens).toBeGreaterThan(0);
      expect(payload.outputTokens).toBeGreaterThan(0);
      expect(payload.costUsd).toBe(0);
      expect(payload.durationMs).toBeGreaterThanOrEqual(0);
    }
    const finished = events.filter((event) => event.type === "run.finished");
    expect(finished.map((event) => (event.payload as { status: string }).status)).toEqual(["succeeded", "succeeded"]);
    const nodeEvents = events.filter((event) => event.type === "node.created" && event.agent === painter.id);
    expect(nodeEvents.every((event) => event.correlation_id === first.correlationId)).toBe(true);
  });
});
