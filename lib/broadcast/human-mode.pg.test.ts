import { spawn } from "node:child_process";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { broadcasts } from "@/db/schema";
import { testSeat, waitForOpenQuestion } from "@/test/broadcasts";
import { createTestRoom } from "@/test/fixtures";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { answerHumanQuestion } from "./answer-question";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.destroy();
});

const root = path.resolve(__dirname, "..", "..");

/** Runs ask_others in its own Node process (another app instance) against the same PostgreSQL database. */
function askFromProcess(roomId: string, persona: string, question: string) {
  return new Promise<{ persona: string; result: Record<string, unknown> }>((resolve, reject) => {
    const child = spawn(path.join(root, "node_modules", ".bin", "tsx"), ["test/support/ask-in-process.ts"], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: database.url!, ROOM_ID: roomId, PERSONA: persona, QUESTION: question },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (err += chunk));
    child.on("exit", (code) => {
      const line = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0) return reject(new Error(`ask process exited ${code}: ${err}`));
      try {
        resolve(JSON.parse(line));
      } catch {
        reject(new Error(`Unexpected output: ${out} ${err}`));
      }
    });
  });
}

describe("human mode across two app processes (PostgreSQL)", () => {
  it("prompts one question at a time; the second opens when the first is answered, and the same question later gets that answer", async () => {
    const { roomId } = await createTestRoom(database.db, { broadcast: "human", broadcast_timeout: 60 });
    const seat = await testSeat(database, roomId);

    let maxOpen = 0;
    let monitoring = true;
    const monitor = (async () => {
      while (monitoring) {
        const rows = await database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId));
        maxOpen = Math.max(maxOpen, rows.filter((row) => row.status === "open").length);
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
    })();

    const songwriter = askFromProcess(roomId, "songwriter", "What mood should the song have?");
    const painter = askFromProcess(roomId, "scene-painter", "What colours should the scene use?");
    await new Promise((resolve) => setTimeout(resolve, 500));
    const first = await waitForOpenQuestion(database, roomId, 30_000);
    await eventuallyBothAsked(roomId);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const waiting = (await database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId))).filter(
      (row) => row.status === "waiting_turn",
    );
    expect(waiting).toHaveLength(1);

    await answerHumanQuestion(database.db, roomId, first.id, seat, "Melancholic, like a rainy night");
    // The waiting question opens at once, with the whole minute, and is answered in its turn.
    const second = await waitForOpenQuestion(database, roomId, 30_000, waiting[0]!.question);
    expect(second.deadlineAt!.getTime() - second.openedAt!.getTime()).toBe(60_000);
    await answerHumanQuestion(database.db, roomId, second.id, seat, "Navy and one warm lamp");
    const results = await Promise.all([songwriter, painter]);
    const byPersona = (persona: string) => results.find((entry) => entry.persona === persona)!.result;
    const [firstPersona, secondPersona] =
      first.agentName === "Songwriter" ? ["songwriter", "scene-painter"] : ["scene-painter", "songwriter"];
    expect(byPersona(firstPersona)).toMatchObject({ status: "complete", responses: [{ content: "Melancholic, like a rainy night" }] });
    expect(byPersona(secondPersona)).toMatchObject({ status: "complete", responses: [{ content: "Navy and one warm lamp" }] });

    // Another agent, on another instance, asks the first question again: it gets the answer, not the room.
    const again = await askFromProcess(roomId, "storyteller", first.question.toUpperCase());
    expect(again.result).toMatchObject({
      status: "reused",
      responses: [{ responder_name: "Ada", content: "Melancholic, like a rainy night", is_human: true }],
      earlier_answer: { question: first.question, asked_by: first.agentName, answered_by: "Ada" },
    });

    monitoring = false;
    await monitor;
    expect(maxOpen).toBe(1);
  }, 90_000);
});

async function eventuallyBothAsked(roomId: string) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const rows = await database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId));
    if (rows.length >= 2) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("Both processes did not ask in time");
}
