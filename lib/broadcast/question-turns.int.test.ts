import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { MockLanguageModelV4 } from "ai/test";
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db";
import { type Broadcast, agentNotes, broadcasts, runs } from "@/db/schema";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { readEventsAfter } from "@/lib/events/read-events";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { broadcastDeps, leaveQuestion, testSeat, waitForOpenQuestion } from "@/test/broadcasts";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { mockResolver, scriptedSteps, setAgentModel, textStep, toolStep } from "@/test/mock-models";
import { QUESTION_PAIRS } from "@/test/question-pairs";
import { type TestDatabase, createTestDatabase, testDriver } from "@/test/test-database";
import { answerHumanQuestion, skipHumanQuestion } from "./answer-question";
import { askAgain } from "./ask-again";
import { askOthers } from "./ask-others";
import { sweepOverdueBroadcasts } from "./end-orphaned-broadcasts";
import { sameQuestion } from "./same-question";

// Questions to the people in a room, asked by agents whose runs two workers execute (two app
// instances on PostgreSQL, each with its own connections): each waits its turn and opens with
// its whole timeout, and an answer is given again only for the same question.

let database: TestDatabase;
let second: Database;
let deps: Awaited<ReturnType<typeof broadcastDeps>>;

beforeAll(async () => {
  database = await createTestDatabase();
  second = testDriver() === "postgres" ? await database.connectAgain() : database;
  deps = await broadcastDeps(database);
});
afterAll(async () => {
  await deps.stop();
  await database.destroy();
});

/** A model that asks the room `question` in its first step and says it is done in its second. */
function asking(question: string, options?: string[]) {
  return scriptedSteps([
    toolStep([{ id: "ask", name: "ask_others", input: { question, ...(options ? { options } : {}) } }]),
    textStep("Done."),
  ]);
}

/** Two workers, one run at a time each: two runs asking at once run on different workers. */
async function twoWorkers(models: Record<string, LanguageModelV4>) {
  const resolveModel = mockResolver(models);
  const workers = [
    await startTestWorker(database, { resolveModel, maxParallel: 1 }),
    await startTestWorker(second, { resolveModel, maxParallel: 1 }),
  ];
  return { stop: () => Promise.all(workers.map((worker) => worker.stop())) };
}

async function runAs(roomId: string, persona: string, model: string) {
  const agent = await agentByPersona(database, roomId, persona);
  await setAgentModel(database, agent.id, `mock:${model}`);
  return startAgentRun(database.db, roomId, { agentId: agent.id, prompt: "Work on the harbour piece." }, alice);
}

async function runEnded(runId: string) {
  return eventually(async () => {
    const [row] = await database.db.select().from(runs).where(eq(runs.id, runId));
    expect(row!.status).toBe("succeeded");
    return row!;
  }, 20_000);
}

async function questionsOf(roomId: string): Promise<Broadcast[]> {
  return database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId)).orderBy(asc(broadcasts.createdAt));
}

async function questionRow(id: string): Promise<Broadcast> {
  const [row] = await database.db.select().from(broadcasts).where(eq(broadcasts.id, id));
  return row!;
}

/** What the ask_others call of a model's run returned, as the model was shown it in its next step. */
function toolOutput(model: MockLanguageModelV4): Record<string, unknown> {
  const prompt = model.doStreamCalls.at(-1)!.prompt;
  for (const message of prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result" && part.toolName === "ask_others" && part.output.type === "json") {
        return part.output.value as Record<string, unknown>;
      }
    }
  }
  throw new Error(`No ask_others result in ${JSON.stringify(prompt)}`);
}

describe("a question waiting behind another", () => {
  const ways = {
    answered: async (roomId: string, ahead: Broadcast) =>
      answerHumanQuestion(database.db, roomId, ahead.id, await testSeat(database, roomId), "Moonlight"),
    skipped: async (roomId: string, ahead: Broadcast) => skipHumanQuestion(database.db, roomId, ahead.id, await testSeat(database, roomId)),
    "timed out": async () => {},
  };
  const expected = {
    answered: { status: "complete", responses: [{ content: "Moonlight", is_human: true }] },
    skipped: { status: "skipped", responses: [] },
    "timed out": { status: "timeout", responses: [], note: expect.stringMatching(/^Nobody in the room answered your question within 5 s/) },
  };

  for (const way of ["answered", "skipped", "timed out"] as const) {
    it(`opens with its whole timeout, on another worker, when the one ahead is ${way}`, async () => {
      // Long enough that the second question is surely queued before the first runs out, on a busy machine too.
      const timeout = way === "timed out" ? 5 : 30;
      const { roomId } = await createTestRoom(database.db, { broadcast: "human", broadcast_timeout: timeout });
      const first = asking("Which light should the scene have: neon or moonlight?", ["neon", "moonlight"]);
      const waiting = asking("Should the chorus repeat twice?");
      const workers = await twoWorkers({ first, waiting });
      try {
        const firstRun = await runAs(roomId, "songwriter", "first");
        const ahead = await waitForOpenQuestion(database, roomId, 10_000);
        const waitingRun = await runAs(roomId, "scene-painter", "waiting");
        const queued = await eventually(async () => {
          const row = (await questionsOf(roomId)).find((question) => question.runId === waitingRun.id);
          expect(row?.status).toBe("waiting_turn");
          return row!;
        }, 10_000);
        const owners = await database.db.select({ owner: runs.leaseOwner }).from(runs).where(eq(runs.roomId, roomId));
        expect(new Set(owners.map((row) => row.owner!.split(":")[0])).size).toBe(2);

        // It waits a while: none of that comes off its own time.
        if (way !== "timed out") await new Promise((resolve) => setTimeout(resolve, 1200));
        await ways[way](roomId, ahead);
        const opened = await waitForOpenQuestion(database, roomId, 5000, "Should the chorus repeat twice?");
        const closedAhead = await questionRow(ahead.id);
        expect(closedAhead.status).toBe(way === "answered" ? "complete" : way === "skipped" ? "skipped" : "timeout");
        // Opened by the very write that ended the one ahead, with the room's whole timeout from then.
        expect(opened.id).toBe(queued.id);
        expect(opened.openedAt!.getTime()).toBe(closedAhead.closedAt!.getTime());
        expect(opened.deadlineAt!.getTime() - opened.openedAt!.getTime()).toBe(timeout * 1000);
        expect(opened.openedAt!.getTime() - opened.createdAt.getTime()).toBeGreaterThan(1000);
        const events = (await readEventsAfter(database.db, roomId, 0, 1000)).filter((event) => event.type.startsWith("broadcast."));
        const closing = events.findIndex((event) => event.type === "broadcast.closed" && event.payload.broadcastId === ahead.id);
        expect(events[closing + 1]).toMatchObject({ type: "broadcast.opened", payload: { broadcastId: queued.id } });

        await runEnded(firstRun.id);
        expect(toolOutput(first)).toMatchObject(expected[way]);
        await answerHumanQuestion(database.db, roomId, opened.id, await testSeat(database, roomId, "Tess"), "Yes, twice");
        await runEnded(waitingRun.id);
        expect(toolOutput(waiting)).toMatchObject({ status: "complete", responses: [{ responder_name: "Tess", content: "Yes, twice" }] });
        expect((await questionsOf(roomId)).map((question) => question.status)).not.toContain("reused");
      } finally {
        await workers.stop();
      }
    });
  }
});

describe("a question whose asker is gone", () => {
  it("is timed out by the sweep at its deadline, which opens the next question with its whole timeout", async () => {
    const { roomId } = await createTestRoom(database.db, { broadcast: "human", broadcast_timeout: 30 });
    const gone = await leaveQuestion(database, roomId, "songwriter", {
      mode: "human",
      status: "open",
      deadlineAt: new Date(Date.now() - 10),
    });
    const next = await leaveQuestion(database, roomId, "scene-painter", {
      mode: "human",
      status: "waiting_turn",
      deadlineAt: new Date(Date.now() + 60_000),
    });
    await sweepOverdueBroadcasts(second.db);
    const [ended, opened] = [await questionRow(gone.id), await questionRow(next.id)];
    expect(ended.status).toBe("timeout");
    expect(opened.status).toBe("open");
    expect(opened.openedAt!.getTime()).toBe(ended.closedAt!.getTime());
    expect(opened.deadlineAt!.getTime() - opened.openedAt!.getTime()).toBe(30_000);
  });
});

describe("an earlier answer", () => {
  it("is given for the same question to any agent in any run, on either worker, and to a different question never", async () => {
    const { roomId } = await createTestRoom(database.db, { broadcast: "human", broadcast_timeout: 30 });
    const models = {
      asked: asking("Which light should the scene have: neon or moonlight?", ["neon", "moonlight"]),
      nextRun: asking("Which light should the scene have — moonlight or neon?"),
      otherAgent: asking("which light should the scene have: neon or moonlight"),
      different: asking("Which light should the scene have: candlelight or dawn?"),
    };
    const workers = await twoWorkers(models);
    try {
      const asked = await runAs(roomId, "songwriter", "asked");
      const open = await waitForOpenQuestion(database, roomId);
      await answerHumanQuestion(database.db, roomId, open.id, await testSeat(database, roomId, "Tess"), "Moonlight");
      await runEnded(asked.id);

      // The same agent in its next run, and another agent, ask the same thing in other words at once.
      const [nextRun, otherAgent] = await Promise.all([runAs(roomId, "songwriter", "nextRun"), runAs(roomId, "storyteller", "otherAgent")]);
      await Promise.all([runEnded(nextRun.id), runEnded(otherAgent.id)]);
      for (const model of [models.nextRun, models.otherAgent]) {
        expect(toolOutput(model)).toMatchObject({
          status: "reused",
          responses: [{ responder_id: "human", responder_name: "Tess", content: "Moonlight", is_human: true }],
          earlier_answer: {
            question: "Which light should the scene have: neon or moonlight?",
            asked_by: "Songwriter",
            answered_by: "Tess",
            answered_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          },
          note: expect.stringMatching(/^The room was not asked again: Tess answered the same question at \d{4}-/),
        });
      }
      const reused = (await questionsOf(roomId)).filter((question) => question.status === "reused");
      expect(reused.map((question) => question.runId).sort()).toEqual([nextRun.id, otherAgent.id].sort());
      expect(reused.every((question) => question.openedAt === null && question.reusedAnswer?.broadcastId === open.id)).toBe(true);
      const closed = (await readEventsAfter(database.db, roomId, 0, 1000)).filter(
        (event) => event.type === "broadcast.closed" && event.payload.status === "reused",
      );
      expect(closed).toHaveLength(2);
      expect(closed[0]!.payload).toMatchObject({ responses: 1, reusedAnswer: { answeredBy: "Tess", answer: "Moonlight" } });

      const different = await runAs(roomId, "scene-painter", "different");
      const put = await waitForOpenQuestion(database, roomId, 10_000, "Which light should the scene have: candlelight or dawn?");
      await answerHumanQuestion(database.db, roomId, put.id, await testSeat(database, roomId), "Dawn");
      await runEnded(different.id);
      expect(toolOutput(models.different)).toMatchObject({ status: "complete", responses: [{ content: "Dawn" }] });
    } finally {
      await workers.stop();
    }
  });

  it("is reused for the labelled same-meaning pairs and not for the different ones", async () => {
    let truePositives = 0;
    let falsePositives = 0;
    let falseNegatives = 0;
    const disagreements: string[] = [];
    const painter = async (roomId: string) => agentByPersona(database, roomId, "scene-painter");
    for (const pair of QUESTION_PAIRS) {
      const { roomId } = await createTestRoom(database.db, { broadcast: "human", broadcast_timeout: 30 });
      const first = askOthers(deps, {
        roomId,
        asker: await agentByPersona(database, roomId, "songwriter"),
        runId: null,
        correlationId: "a",
        question: pair.a,
        options: pair.optionsA,
      });
      const open = await waitForOpenQuestion(database, roomId, 5000);
      await answerHumanQuestion(database.db, roomId, open.id, await testSeat(database, roomId), `About: ${pair.a}`);
      await first;
      const second = askOthers(deps, {
        roomId,
        asker: await painter(roomId),
        runId: null,
        correlationId: "b",
        question: pair.b,
        options: pair.optionsB,
      });
      // Either the earlier answer comes back at once, or the question opens to the room (and is skipped here).
      const row = await eventually(async () => {
        const [filed] = await database.db
          .select()
          .from(broadcasts)
          .where(and(eq(broadcasts.roomId, roomId), eq(broadcasts.correlationId, "b")));
        expect(["reused", "open"]).toContain(filed?.status);
        return filed!;
      });
      if (row.status === "open") await skipHumanQuestion(database.db, roomId, row.id, await testSeat(database, roomId));
      const result = await second;
      const reused = result.status === "reused";
      if (reused && pair.same) truePositives += 1;
      if (reused && !pair.same) falsePositives += 1;
      if (!reused && pair.same) falseNegatives += 1;
      if (reused !== sameQuestion({ question: pair.a, options: pair.optionsA }, { question: pair.b, options: pair.optionsB })) {
        disagreements.push(`"${pair.a}" / "${pair.b}"`);
      }
    }
    const precision = truePositives / Math.max(1, truePositives + falsePositives);
    const recall = truePositives / Math.max(1, truePositives + falseNegatives);
    const figures = `precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)} on ${QUESTION_PAIRS.length} pairs asked in rooms`;
    expect(precision >= 0.95 && recall >= 0.8, figures).toBe(true);
    expect(disagreements, "the room reused an answer where the rule said otherwise, or the reverse").toEqual([]);
  }, 120_000);
});

describe("asking the room again", () => {
  it("puts a question that got an earlier answer to the room in its turn, and the new answer reaches the agent", async () => {
    const { roomId } = await createTestRoom(database.db, { broadcast: "human", broadcast_timeout: 30, max_broadcasts_per_agent: 1 });
    const ada = await testSeat(database, roomId, "Ada");
    const tess = await testSeat(database, roomId, "Tess");
    const ask = (persona: string, question: string) =>
      agentByPersona(database, roomId, persona).then((asker) =>
        askOthers(deps, { roomId, asker, runId: null, correlationId: `c-${persona}`, question }),
      );

    const asked = ask("songwriter", "Should the chorus repeat twice?");
    await answerHumanQuestion(database.db, roomId, (await waitForOpenQuestion(database, roomId)).id, tess, "Yes");
    await asked;
    expect(await ask("scene-painter", "Should the chorus repeat twice?")).toMatchObject({ status: "reused" });
    const [reused] = (await questionsOf(roomId)).filter((question) => question.status === "reused");

    // Another question holds the room: asked again, it waits its turn like any other.
    const holding = ask("storyteller", "Whose eyes should the story see through?");
    const open = await waitForOpenQuestion(database, roomId);
    const again = await askAgain(database.db, roomId, reused!.id, ada);
    expect(again).toMatchObject({ status: "waiting_turn", askedAgainOf: reused!.id, question: reused!.question, agentId: reused!.agentId });
    await expect(askAgain(database.db, roomId, reused!.id, ada)).rejects.toMatchObject({
      status: 409,
      message: "This question has already been put to the room again.",
    });
    await expect(askAgain(database.db, roomId, open.id, ada)).rejects.toMatchObject({ status: 409 });
    await expect(askAgain(database.db, roomId, "no-such-question", ada)).rejects.toMatchObject({ status: 404 });
    // The question asked again is the people's: the agent may still ask one of its own, which queues behind it.
    const painters = ask("scene-painter", "Which light should the scene have?");

    await answerHumanQuestion(database.db, roomId, open.id, tess, "The one who stays");
    await holding;
    // Not answered from the earlier answer this time: the people asked for a fresh one.
    const reopened = await waitForOpenQuestion(database, roomId, 5000, "Should the chorus repeat twice?");
    expect(reopened.id).toBe(again.id);
    expect(reopened.deadlineAt!.getTime() - reopened.openedAt!.getTime()).toBe(30_000);
    await answerHumanQuestion(database.db, roomId, reopened.id, ada, "No, once is enough");
    const painterQuestion = await waitForOpenQuestion(database, roomId, 5000, "Which light should the scene have?");
    await skipHumanQuestion(database.db, roomId, painterQuestion.id, ada);
    expect(await painters).toMatchObject({ status: "skipped" });

    const [note] = await database.db.select().from(agentNotes).where(eq(agentNotes.broadcastId, again.id));
    expect(note).toMatchObject({ agentId: reused!.agentId, deliveredAt: null });
    expect(note!.text).toBe(
      '[INFO] The people put your question "Should the chorus repeat twice?" to the room again, and Ada answered: "No, once is enough" ' +
        "(This replaces the earlier answer you were given.)",
    );
    // From now on the fresh answer is the one given for that question.
    expect(await ask("curator", "Should the chorus repeat twice?")).toMatchObject({
      status: "reused",
      responses: [{ responder_name: "Ada", content: "No, once is enough" }],
    });
  });

  it("reaches the agent's next run as a note", async () => {
    const { roomId } = await createTestRoom(database.db, { broadcast: "human", broadcast_timeout: 30 });
    const seat = await testSeat(database, roomId, "Ada");
    const models = {
      asked: asking("Should the chorus repeat twice?"),
      again: asking("Should the chorus repeat twice?"),
      later: scriptedSteps([textStep("Noted.")]),
    };
    const workers = await twoWorkers(models);
    try {
      const asked = await runAs(roomId, "songwriter", "asked");
      await answerHumanQuestion(database.db, roomId, (await waitForOpenQuestion(database, roomId)).id, seat, "Yes");
      await runEnded(asked.id);
      const reusedRun = await runAs(roomId, "scene-painter", "again");
      await runEnded(reusedRun.id);
      expect(toolOutput(models.again)).toMatchObject({ status: "reused", responses: [{ content: "Yes" }] });
      const [reused] = (await questionsOf(roomId)).filter((question) => question.status === "reused");
      await askAgain(database.db, roomId, reused!.id, seat);
      const reopened = await waitForOpenQuestion(database, roomId);
      await answerHumanQuestion(database.db, roomId, reopened.id, seat, "No, once is enough");

      const later = await runAs(roomId, "scene-painter", "later");
      await runEnded(later.id);
      expect(JSON.stringify(models.later.doStreamCalls[0]!.prompt)).toMatch(/Ada answered: \\"No, once is enough\\"/);
    } finally {
      await workers.stop();
    }
  });
});
