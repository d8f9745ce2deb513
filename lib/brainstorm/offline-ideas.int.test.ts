import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { brainstorms } from "@/db/schema";
import { createRoom } from "@/lib/rooms/create-room";
import { startTestWorker } from "@/test/agents";
import { eventually } from "@/test/fixtures";
import { useTestRuntime } from "@/test/test-runtime";
import { startBrainstorm } from "./start-brainstorm";
import { readWork } from "./work";

const context = useTestRuntime();
const ADA = { id: "human:ada", name: "Ada" };

const PROBLEMS = [
  "Reduce food waste in our office cafeteria",
  "Our nightly CI builds take three hours",
  "How can we keep volunteers coming back to the community garden?",
];

/** The words of a problem an idea may name it by. */
function wordsOf(problem: string): string[] {
  return problem
    .toLowerCase()
    .split(/[^a-z0-9-]+/)
    .filter((word) => word.length > 2);
}

describe("the offline brainstorm's ideas, through a worker and the database", () => {
  it("depend on the problem: no idea title appears for two problems, and every idea names something from its problem", async () => {
    const worker = await startTestWorker(context.database);
    try {
      const started = await Promise.all(
        PROBLEMS.map(async (problem, index) => {
          const { room } = await createRoom(context.database.db, { title: `Problem ${index + 1}`, template: "brainstorm" });
          return { problem, brainstorm: await startBrainstorm(context.database.db, room.id, problem, ADA) };
        }),
      );
      const owner = new Map<string, string>();
      for (const { problem, brainstorm } of started) {
        // Divergent thinking done: every ideator's ideas are in.
        await eventually(async () => {
          const [row] = await context.database.db.select().from(brainstorms).where(eq(brainstorms.id, brainstorm.id));
          expect(row!.stages.divergent.status).toBe("done");
        }, 60_000);
        const { ideas } = await readWork(context.database.db, brainstorm.id);
        expect(ideas.length).toBeGreaterThanOrEqual(8);
        expect(new Set(ideas.map((idea) => idea.agentId)).size).toBe(4);
        const words = wordsOf(problem);
        for (const idea of ideas) {
          const title = idea.title.toLowerCase();
          expect(owner.get(title) ?? problem, `"${idea.title}" for two problems`).toBe(problem);
          owner.set(title, problem);
          expect(
            words.some((word) => title.includes(word)),
            `"${idea.title}" names nothing from "${problem}"`,
          ).toBe(true);
        }
      }
      expect(new Set(owner.values()).size).toBe(PROBLEMS.length);
    } finally {
      await worker.stop();
    }
  });
});
