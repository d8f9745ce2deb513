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
  it("prompts one question at a time; the second asker gets the first answer as deferred, then prompts on its next ask", async () => {
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
    const results = await Promise.all([songwriter, painter]);
    const firstPersona = first.agentName === "Songwriter" ? "songwriter" : "scene-painter";
    const winner = results.find((entry) => entry.persona === firstPersona)!;
    const other = results.find((entry) => entry.persona !== firstPersona)!;
    expect(winner.result).toMatchObject({
      status: "complete",
      responses: [{ content: "Melancholic, like a rainy night", is_human: true }],
    });
    expect(other.result).toMatchObject({
      status: "deferred",
      responses: [],
      human_qa_history: [{ question: first.question, answer: "Melancholic, like a rainy night" }],
    });

    const again = askFromProcess(roomId, other.persona, "Which colours exactly?");
    const second = await waitForOpenQuestion(database, roomId, 30_000);
    expect(second.question).toBe("Which colours exactly?");
    await answerHumanQuestion(database.db, roomId, second.id, seat, "Navy and one warm lamp");
    expect((await again).result).toMatchObject({ status: "complete", responses: [{ content: "Navy and one warm lamp" }] });

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
