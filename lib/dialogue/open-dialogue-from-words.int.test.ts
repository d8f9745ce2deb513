import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type Agent, agents, brainstorms, dialogues, runs } from "@/db/schema";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { emptyStage } from "@/lib/brainstorm/advance-brainstorm";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import { STAGE_KEYS, type StageKey, type StageStateDto } from "@/lib/protocol/brainstorm";
import { createRoom } from "@/lib/rooms/create-room";
import { DEFAULT_ROOM_SETTINGS } from "@/lib/rooms/room-settings";
import { alice } from "@/test/fixtures";
import { useTestDatabase } from "@/test/test-runtime";
import { openDialogueFromWords } from "./open-dialogue-from-words";

const context = useTestDatabase();

const stagesWith = (divergentRunning: boolean) =>
  Object.fromEntries(
    STAGE_KEYS.map((stage) => [stage, { ...emptyStage(), status: stage === "divergent" && divergentRunning ? "running" : "pending" }]),
  ) as Record<StageKey, StageStateDto>;

/** A brainstorm room, its divergent stage running (the ideators working alone) or not. */
async function brainstormRoom(divergentRunning: boolean) {
  const { room } = await createRoom(context.database.db, { title: "Ideas", template: "brainstorm" });
  await context.database.db.insert(brainstorms).values({
    id: randomUUID(),
    roomId: room.id,
    correlationId: "bs",
    problem: "Fewer cars in town",
    status: "running",
    stages: stagesWith(divergentRunning),
  });
  const team = await context.database.db.select().from(agents).where(eq(agents.roomId, room.id));
  return { roomId: room.id, team, persona: (persona: string) => team.find((member) => member.persona === persona)! };
}

/** A run of `speaker`'s own, started by a person. */
async function runOf(roomId: string, speaker: Agent) {
  const started = await startAgentRun(context.database.db, roomId, { agentId: speaker.id, prompt: "Work." }, alice);
  const [run] = await context.database.db.select().from(runs).where(eq(runs.id, started.id));
  return run!;
}

/** What `speaker` said at the end of a run of its own, read as a question to a teammate. */
async function say(roomId: string, team: Agent[], speaker: Agent, text: string, run?: typeof runs.$inferSelect) {
  run ??= await runOf(roomId, speaker);
  const { result } = await writeRoomEvents(context.database.db, roomId, (tx, emit, at) =>
    openDialogueFromWords(tx, emit, { run, text, team, settings: DEFAULT_ROOM_SETTINGS, buildReviewId: null, at }),
  );
  return result ?? null;
}

describe("a dialogue opened from an agent's words", () => {
  it("never draws in an ideator working alone in divergent thinking, nor lets one open a dialogue", async () => {
    const { roomId, team, persona } = await brainstormRoom(false);
    // The ideator's own run of stage 1 (a person may not start one once the stage runs).
    const ideatorRun = await runOf(roomId, persona("wild-ideator"));
    await context.database.db
      .update(brainstorms)
      .set({ stages: stagesWith(true) })
      .where(eq(brainstorms.roomId, roomId));
    expect(await say(roomId, team, persona("narrator"), "Wild Ideator, could you push idea 3 further?")).toBeNull();
    expect(await say(roomId, team, persona("narrator"), "@contrarian what would you turn upside down?")).toBeNull();
    expect(await say(roomId, team, persona("wild-ideator"), "Narrator, what should the deliverable lead with?", ideatorRun)).toBeNull();
    expect(await context.database.db.select().from(dialogues).where(eq(dialogues.roomId, roomId))).toEqual([]);
    // Anyone else may still be asked.
    const opened = await say(roomId, team, persona("narrator"), "Strategist, which option should lead?");
    expect(opened).toMatchObject({ askerAgentId: persona("narrator").id, addresseeAgentId: persona("strategist").id, reason: "vocative" });
  });

  it("opens with an ideator once it no longer works alone", async () => {
    const { roomId, team, persona } = await brainstormRoom(false);
    const opened = await say(roomId, team, persona("narrator"), "Wild Ideator, could you push idea 3 further?");
    expect(opened).toMatchObject({
      askerAgentId: persona("narrator").id,
      addresseeAgentId: persona("wild-ideator").id,
      topic: "Wild Ideator, could you push idea 3 further?",
    });
  });

  it("opens none when dialogues are off, or when the words address nobody", async () => {
    const { roomId, team, persona } = await brainstormRoom(false);
    const narrator = persona("narrator");
    expect(await say(roomId, team, narrator, "The deliverable is ready.")).toBeNull();
    const started = await startAgentRun(context.database.db, roomId, { agentId: narrator.id, prompt: "Work." }, alice);
    const [run] = await context.database.db.select().from(runs).where(eq(runs.id, started.id));
    const { result } = await writeRoomEvents(context.database.db, roomId, (tx, emit, at) =>
      openDialogueFromWords(tx, emit, {
        run: run!,
        text: "Strategist, which option?",
        team,
        settings: { ...DEFAULT_ROOM_SETTINGS, dialogue_max_rounds: 0 },
        buildReviewId: null,
        at,
      }),
    );
    expect(result).toBeNull();
    expect(await context.database.db.select().from(dialogues).where(eq(dialogues.roomId, roomId))).toEqual([]);
  });
});
