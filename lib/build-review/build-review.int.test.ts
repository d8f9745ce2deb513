import { and, asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agents, buildReviews, dialogues, events, runs } from "@/db/schema";
import { POST as startRoute } from "@/app/api/rooms/[roomId]/build-reviews/route";
import { GET as codeRoute } from "@/app/api/rooms/[roomId]/build-reviews/[reviewId]/code/route";
import { POST as takeSeat } from "@/app/api/rooms/[roomId]/seat/route";
import { updateNode } from "@/lib/canvas/update-node";
import { getEnv } from "@/lib/env";
import { resolveModel } from "@/lib/models/registry";
import { createRoom } from "@/lib/rooms/create-room";
import { getRoomSnapshot } from "@/lib/rooms/get-room-snapshot";
import type { RoomSettingsPatch } from "@/lib/rooms/room-settings";
import { startTestWorker } from "@/test/agents";
import { type ChatReply, type ChatRequest, startChatServer } from "@/test/chat-server";
import { alice, eventually } from "@/test/fixtures";
import { call, cookieFrom } from "@/test/http";
import { setAgentModel } from "@/test/mock-models";
import { useTestRuntime } from "@/test/test-runtime";
import { readWorkflow } from "@/lib/workflows/read-workflow";
import { startBuildReview } from "./start-build-review";

const context = useTestRuntime();

async function reviewRoom(settings: RoomSettingsPatch = {}, model?: string) {
  const { room, agents } = await createRoom(context.database.db, { title: "Review", template: "build-review" }, { settings });
  if (model) for (const agent of agents) await setAgentModel(context.database, agent.id, model);
  return { roomId: room.id, agents };
}

async function closed(roomId: string) {
  return eventually(async () => {
    const [review] = await context.database.db.select().from(buildReviews).where(eq(buildReviews.roomId, roomId));
    expect(["approved", "not_approved", "cancelled"]).toContain(review!.status);
    const active = await context.database.db
      .select()
      .from(runs)
      .where(and(eq(runs.roomId, roomId), eq(runs.status, "queued")));
    expect(active).toHaveLength(0);
    return review!;
  }, 30_000);
}

async function typesOf(roomId: string) {
  const rows = await context.database.db
    .select({
      type: events.type,
      payload: events.payload,
      agent: events.agent,
      targetAgent: events.targetAgent,
      nextSteps: events.nextSteps,
    })
    .from(events)
    .where(eq(events.roomId, roomId))
    .orderBy(asc(events.seq));
  return rows;
}

/** What a stand-in provider answers each agent of a build review, by the step its task names. */
type Behaviour = {
  verdict: (version: number) => { verdict: "approve" | "changes"; issues: unknown[]; openQuestions: string[] };
  satisfied: (round: number) => boolean;
  /** What the Coder answers in its ready step, when not the default "ready" (or a question below). */
  coderReady?: ChatReply;
  /** The Architect's brief, when not the default one. */
  architectSays?: string;
  /** What the Coder says once it has submitted a version, when not the default "Done.". */
  coderSays?: (version: number) => string | null;
  /** The Coder's provider refuses its code steps from this version on. */
  coderFailsFrom?: number;
  /** The Coder asks the Architect its one question in its ready step, before version 1. */
  coderAsks?: boolean;
  /** …in words only, as a model without tools would. */
  coderAsksInText?: boolean;
  /** The Reviewer answers in words only, as a model without tools does: what it says of each version. */
  reviewerSays?: (version: number) => string;
  /** The Reviewer puts a question to the Coder with ask_teammate when it reviews version 1. */
  reviewerAsks?: boolean;
  /** The Reviewer replies in a dialogue in words only, as a model without tools does: what it says in each round. */
  reviewerRepliesSay?: (round: number) => string;
};

function standIn(behaviour: Behaviour) {
  return startChatServer((request: ChatRequest) => {
    const system = String(request.messages.find((message) => message.role === "system")?.content ?? "");
    const first = request.messages.find((message) => message.role === "user");
    // The run's own task: what comes before "Why you were started" in its opening message.
    const user = (typeof first?.content === "string" ? first.content : JSON.stringify(first?.content)).split("## Why you were started")[0]!;
    const answered = request.messages.some((message) => message.role === "tool");
    const reply = (value: ChatReply) => value;
    const code = user.match(/write the code \(version (\d+)/);
    const said = code && answered ? behaviour.coderSays?.(Number(code[1])) : null;
    if (said) return reply({ text: said });
    if (answered) return reply({ text: /You are Reviewer/.test(system) ? "That is my view." : "Done." });
    if (/## Build review: get ready to code/.test(user)) {
      if (behaviour.coderAsksInText) return reply({ text: "Before I start: Architect, should an empty input return an empty list?" });
      if (behaviour.coderAsks) {
        return reply({
          toolCall: { name: "ask_teammate", arguments: { target: "architect", question: "Should an empty input return an empty list?" } },
        });
      }
      return reply(behaviour.coderReady ?? { text: "Ready: I will split the sentence on whitespace and count the pieces." });
    }
    if (code && behaviour.coderFailsFrom !== undefined && Number(code[1]) >= behaviour.coderFailsFrom) return reply({ status: 400 });
    if (code)
      return reply({
        toolCall: { name: "submit_code", arguments: { language: "typescript", code: `export const version = ${code[1]};` } },
      });
    const review = user.match(/review version (\d+)/);
    if (review && behaviour.reviewerSays) return reply({ text: behaviour.reviewerSays(Number(review[1])) });
    if (review && behaviour.reviewerAsks && review[1] === "1") {
      return reply({
        toolCall: { name: "ask_teammate", arguments: { target: "coder", question: "What does it return for an empty sentence?" } },
      });
    }
    if (review) return reply({ toolCall: { name: "submit_verdict", arguments: behaviour.verdict(Number(review[1])) } });
    const replying = user.match(/Dialogue with .+? \(round (\d+) of \d+\): reply/);
    if (replying && behaviour.reviewerRepliesSay && /You are Reviewer/.test(system))
      return reply({ text: behaviour.reviewerRepliesSay(Number(replying[1])) });
    if (replying) {
      const satisfied = behaviour.satisfied(Number(replying[1]));
      return reply({
        toolCall: { name: "reply_in_dialogue", arguments: satisfied ? { satisfied } : { satisfied, remaining: "the null case" } },
      });
    }
    if (/: answer/.test(user)) return reply({ text: "It returns an empty list for an empty input." });
    return reply({ text: behaviour.architectSays ?? "Goal: count words. Edge cases: empty input." });
  });
}

async function runReview(settings: RoomSettingsPatch, behaviour: Behaviour) {
  const server = await standIn(behaviour);
  const env = { ...getEnv(), OPENAI_COMPATIBLE_BASE_URL: server.baseURL, OPENAI_COMPATIBLE_API_KEY: "k" };
  const worker = await startTestWorker(context.database, { resolveModel: (spec) => resolveModel(spec, { env, scriptPaceMs: 0 }) });
  try {
    const { roomId } = await reviewRoom(settings, "openai-compatible:stand-in");
    await startBuildReview(context.database.db, roomId, "Write a function that counts the words in a sentence", {
      id: "human:ada",
      name: "Ada",
    });
    const review = await closed(roomId);
    const talks = await context.database.db.select().from(dialogues).where(eq(dialogues.roomId, roomId));
    const team = await context.database.db.select().from(agents).where(eq(agents.roomId, roomId));
    const idOf = (persona: string) => team.find((member) => member.persona === persona)!.id;
    return { roomId, review, talks, server, log: await typesOf(roomId), idOf };
  } finally {
    await worker.stop();
    await server.close();
  }
}

const approveFrom = (version: number) => (seen: number) =>
  seen >= version
    ? { verdict: "approve" as const, issues: [], openQuestions: [] }
    : {
        verdict: "changes" as const,
        issues: [{ severity: "major", text: "Empty input is not handled." }],
        openQuestions: ["Coder, what happens on an empty input?"],
      };

describe("the build review", () => {
  it("is approved after one dialogue (a provider on the wire)", async () => {
    const { review, talks, log } = await runReview({}, { verdict: approveFrom(2), satisfied: () => true });
    expect(review).toMatchObject({ status: "approved", round: 2, codeVersion: 2 });
    expect(talks).toEqual([expect.objectContaining({ status: "resolved", rounds: 1, reason: "open question" })]);
    const types = log.map((row) => row.type);
    const order = [
      "review.started",
      "review.ready",
      "review.code",
      "review.verdict",
      "dialogue.opened",
      "dialogue.message",
      "dialogue.message",
      "dialogue.closed",
      "review.code",
      "review.verdict",
      "review.closed",
    ];
    expect(types.filter((type) => order.includes(type))).toEqual(order);
    const message = log.find((row) => row.type === "dialogue.message")!.payload as { durationMs: number; costKnown: boolean; text: string };
    expect(message).toMatchObject({ costKnown: false, text: "It returns an empty list for an empty input." });
    expect(message.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("says in every message of the review and its dialogue whom it is for and what follows it", async () => {
    const { log, idOf } = await runReview({}, { verdict: approveFrom(2), satisfied: () => true });
    const [architect, coder, reviewer] = ["architect", "coder", "reviewer"].map(idOf);
    const protocol = log
      .filter((row) => row.type.startsWith("review.") || row.type.startsWith("dialogue."))
      .map(({ type, agent, targetAgent, nextSteps }) => ({ type, agent, targetAgent, nextSteps }));
    expect(protocol).toEqual([
      { type: "review.started", agent: "human:ada", targetAgent: architect, nextSteps: ["review.ready"] },
      { type: "review.ready", agent: coder, targetAgent: architect, nextSteps: ["review.code"] },
      { type: "review.code", agent: coder, targetAgent: reviewer, nextSteps: ["review.verdict"] },
      // Changes with an open question: the Reviewer and the Coder talk first.
      { type: "review.verdict", agent: reviewer, targetAgent: coder, nextSteps: ["dialogue.opened"] },
      { type: "dialogue.opened", agent: reviewer, targetAgent: coder, nextSteps: ["dialogue.message"] },
      { type: "dialogue.message", agent: coder, targetAgent: reviewer, nextSteps: ["dialogue.message"] },
      { type: "dialogue.replied", agent: reviewer, targetAgent: coder, nextSteps: ["dialogue.message"] },
      { type: "dialogue.message", agent: reviewer, targetAgent: coder, nextSteps: ["dialogue.closed"] },
      // The Reviewer asked: its verdict is weighed, and the Coder writes the next version or the review closes.
      { type: "dialogue.closed", agent: reviewer, targetAgent: null, nextSteps: ["review.code", "review.closed"] },
      { type: "review.code", agent: coder, targetAgent: reviewer, nextSteps: ["review.verdict"] },
      { type: "review.verdict", agent: reviewer, targetAgent: coder, nextSteps: ["review.closed"] },
      // The end of the workflow: nothing follows, and it is for no one.
      { type: "review.closed", agent: "system", targetAgent: null, nextSteps: [] },
    ]);
  });

  it("leaves a dialogue unresolved after two rounds, and goes on", async () => {
    const { review, talks } = await runReview({}, { verdict: approveFrom(2), satisfied: () => false });
    expect(talks).toEqual([expect.objectContaining({ status: "unresolved", rounds: 2, remaining: "the null case" })]);
    expect(review.status).toBe("approved");
  });

  it("has the Coder say it is ready after the brief, shown in the feed, before it writes code it can no longer ask about", async () => {
    const { review, talks, log, server } = await runReview({}, { verdict: approveFrom(1), satisfied: () => true });
    expect(review).toMatchObject({ status: "approved", round: 1, codeVersion: 1, clarified: false });
    expect(talks).toEqual([]);
    const workflowRuns = await context.database.db
      .select()
      .from(runs)
      .where(eq(runs.correlationId, review.correlationId))
      .orderBy(asc(runs.createdAt));
    expect(workflowRuns.map((run) => run.purpose?.kind)).toEqual(["brief", "ready", "code", "review"]);
    const coder = workflowRuns[1]!.agentId;
    expect(workflowRuns[2]!.agentId).toBe(coder);
    // What it said it would do is in the feed, in the review's workflow, between the brief and the code.
    const [ready] = await context.database.db
      .select()
      .from(events)
      .where(and(eq(events.roomId, review.roomId), eq(events.type, "review.ready")));
    expect(ready).toMatchObject({
      agent: coder,
      correlationId: review.correlationId,
      payload: { reviewId: review.id, text: "Ready: I will split the sentence on whitespace and count the pieces." },
    });
    const types = log.map((row) => row.type);
    expect(types.indexOf("review.ready")).toBeLessThan(types.indexOf("review.code"));
    // Asked with the brief in its ready step, it may ask; writing the code, it may not.
    const toolsOf = (heading: RegExp) =>
      server.requests.find((request) => heading.test(JSON.stringify(request.messages)))!.tools!.map((tool) => tool.function.name);
    expect(toolsOf(/get ready to code/)).toContain("ask_teammate");
    expect(toolsOf(/write the code \(version 1/)).toEqual(expect.arrayContaining(["submit_code"]));
    expect(toolsOf(/write the code \(version 1/)).not.toContain("ask_teammate");
  });

  it("closes the review when the Coder's ready step fails: with no verdict to end on, its workflow failed", async () => {
    const { review, log } = await runReview({}, { verdict: approveFrom(1), satisfied: () => true, coderReady: { status: 400 } });
    expect(review).toMatchObject({ status: "not_approved", codeVersion: 0 });
    expect(log.some((row) => row.type === "review.ready" || row.type === "review.code")).toBe(false);
    const [closing] = await context.database.db
      .select()
      .from(events)
      .where(and(eq(events.roomId, review.roomId), eq(events.type, "review.closed")));
    expect(closing).toMatchObject({
      status: "error",
      payload: expect.objectContaining({ outcome: "not_approved", reason: "Coder's run failed." }),
    });
    // The Architect's brief succeeded, but a brief is not what a build review is for.
    expect((await readWorkflow(context.database.db, review.roomId, review.correlationId)).status).toBe("failed");
  });

  it("closes the review when the Coder fails after a verdict: it ends on that verdict, its workflow degraded", async () => {
    const { review } = await runReview({ dialogue_max_rounds: 0 }, { verdict: approveFrom(99), satisfied: () => true, coderFailsFrom: 2 });
    expect(review).toMatchObject({ status: "not_approved", round: 2, codeVersion: 1, outcome: "Coder's run failed." });
    expect(review.lastVerdict).toMatchObject({ verdict: "changes", version: 1 });
    expect((await readWorkflow(context.database.db, review.roomId, review.correlationId)).status).toBe("degraded");
  });

  it("lets the Coder ask the Architect one question in its ready step, before its first version", async () => {
    const { review, talks, log, idOf } = await runReview({}, { verdict: approveFrom(1), satisfied: () => true, coderAsks: true });
    expect(review).toMatchObject({ status: "approved", round: 1, codeVersion: 1, clarified: true });
    // Asked of the Architect, answered, and once settled the Coder writes its code.
    expect(log.find((row) => row.type === "dialogue.opened")).toMatchObject({
      agent: idOf("coder"),
      targetAgent: idOf("architect"),
      nextSteps: ["dialogue.message"],
    });
    expect(log.find((row) => row.type === "dialogue.message")).toMatchObject({ agent: idOf("architect"), targetAgent: idOf("coder") });
    expect(log.find((row) => row.type === "dialogue.closed")).toMatchObject({ nextSteps: ["review.code"] });
    expect(talks).toEqual([
      expect.objectContaining({ status: "resolved", rounds: 1, reason: "question", topic: "Should an empty input return an empty list?" }),
    ]);
    const opened = log.find((row) => row.type === "dialogue.opened")!.payload as {
      dialogue: { askerAgentId: string; addresseeAgentId: string };
    };
    const workflowRuns = await context.database.db
      .select()
      .from(runs)
      .where(eq(runs.correlationId, review.correlationId))
      .orderBy(asc(runs.createdAt));
    expect(workflowRuns.map((run) => run.purpose?.kind)).toEqual(["brief", "ready", "answer", "reply", "code", "review"]);
    expect(opened.dialogue.askerAgentId).not.toBe(opened.dialogue.addresseeAgentId);
    // It asked instead of saying it was ready; the question is asked once.
    expect(log.filter((row) => row.type === "dialogue.opened")).toHaveLength(1);
    expect(log.some((row) => row.type === "review.ready")).toBe(false);
  });

  it("opens the Coder's question from its words when it asks without tools", async () => {
    const { review, talks } = await runReview({}, { verdict: approveFrom(1), satisfied: () => true, coderAsksInText: true });
    expect(review).toMatchObject({ status: "approved", codeVersion: 1, clarified: true });
    expect(talks).toEqual([
      expect.objectContaining({
        status: "resolved",
        reason: "question",
        topic: "Before I start: Architect, should an empty input return an empty list?",
      }),
    ]);
    const workflowRuns = await context.database.db
      .select()
      .from(runs)
      .where(eq(runs.correlationId, review.correlationId))
      .orderBy(asc(runs.createdAt));
    expect(workflowRuns.map((run) => run.purpose?.kind)).toEqual(["brief", "ready", "answer", "reply", "code", "review"]);
  });

  it("opens a dialogue beside the review when the Architect's brief addresses a teammate, and the Coder gets ready all the same", async () => {
    const brief = "Goal: count words. Edge cases: empty input.\n\nCoder, start with the tokenizer and keep it to one function.";
    const { review, talks, log, idOf } = await runReview({}, { verdict: approveFrom(1), satisfied: () => true, architectSays: brief });
    expect(review).toMatchObject({ status: "approved", round: 1, codeVersion: 1, clarified: false });
    expect(talks).toEqual([
      expect.objectContaining({
        askerAgentId: idOf("architect"),
        addresseeAgentId: idOf("coder"),
        reason: "vocative",
        topic: "Coder, start with the tokenizer and keep it to one function.",
        buildReviewId: null,
        correlationId: review.correlationId,
        status: "resolved",
      }),
    ]);
    // The review did not wait for it: the Coder's ready step was queued by the brief's end, as the dialogue's answer was.
    const workflowRuns = await context.database.db
      .select()
      .from(runs)
      .where(eq(runs.correlationId, review.correlationId))
      .orderBy(asc(runs.createdAt));
    const brief1 = workflowRuns.find((run) => run.purpose?.kind === "brief")!;
    const ready = workflowRuns.find((run) => run.purpose?.kind === "ready")!;
    const answer = workflowRuns.find((run) => run.purpose?.kind === "answer")!;
    expect(ready.createdAt.getTime()).toBe(answer.createdAt.getTime());
    expect([ready.parentRunId, answer.parentRunId]).toEqual([brief1.id, brief1.id]);
    expect(log.map((row) => row.type).filter((type) => type === "review.ready" || type === "review.closed")).toEqual([
      "review.ready",
      "review.closed",
    ]);
  });

  it("holds the review while a dialogue the Coder's words opened about its version runs, then reviews that version with what it settled", async () => {
    const { review, talks, log, idOf } = await runReview(
      {},
      {
        verdict: approveFrom(1),
        satisfied: () => true,
        coderSays: (version) => (version === 1 ? "Reviewer, should an empty sentence count as zero words?" : null),
      },
    );
    expect(review).toMatchObject({ status: "approved", round: 1, codeVersion: 1 });
    expect(talks).toEqual([
      expect.objectContaining({
        askerAgentId: idOf("coder"),
        addresseeAgentId: idOf("reviewer"),
        buildReviewId: review.id,
        status: "resolved",
        rounds: 1,
      }),
    ]);
    const order = ["review.code", "dialogue.opened", "dialogue.closed", "review.verdict", "review.closed"];
    expect(log.map((row) => row.type).filter((type) => order.includes(type))).toEqual(order);
    // Version 1 was reviewed once, after the dialogue, which the Reviewer's task recalls.
    const workflowRuns = await context.database.db
      .select()
      .from(runs)
      .where(eq(runs.correlationId, review.correlationId))
      .orderBy(asc(runs.createdAt));
    expect(workflowRuns.map((run) => run.purpose?.kind)).toEqual(["brief", "ready", "code", "answer", "reply", "review"]);
    expect(workflowRuns.at(-1)!.prompt).toContain(
      "From the Coder's dialogue about this version:\n- Settled: Reviewer, should an empty sentence count as zero words?",
    );
  });

  it("keeps every version of the code the Coder submitted, whatever happens to its node since", async () => {
    const { roomId, review } = await runReview({}, { verdict: approveFrom(2), satisfied: () => true });
    const nodeId = review.codeNodeId!;
    // People move and edit the node: its own version moves on, the code's does not.
    await updateNode(context.database.db, roomId, nodeId, alice, { x: 900, y: 40 });
    await updateNode(context.database.db, roomId, nodeId, alice, { text: "export const version = 2; // tidied" });
    const history = await call(codeRoute, { url: "/x", method: "GET", params: { roomId, reviewId: review.id } });
    expect(history.status).toBe(200);
    expect(history.body.code).toMatchObject({ reviewId: review.id, nodeId });
    expect(
      history.body.code.versions.map((entry: { version: number; language: string; code: string }) => [
        entry.version,
        entry.language,
        entry.code,
      ]),
    ).toEqual([
      [1, "typescript", "export const version = 1;"],
      [2, "typescript", "export const version = 2;"],
    ]);
    const snapshot = await getRoomSnapshot(context.database.db, roomId);
    expect(snapshot.nodes.find((node) => node.id === nodeId)!.version).toBe(4);
    expect(snapshot.codeNodes).toEqual([{ nodeId, reviewId: review.id, version: 2, language: "typescript" }]);

    expect((await call(codeRoute, { url: "/x", method: "GET", params: { roomId, reviewId: "no-such-review" } })).status).toBe(404);
    const other = await reviewRoom();
    expect((await call(codeRoute, { url: "/x", method: "GET", params: { roomId: other.roomId, reviewId: review.id } })).status).toBe(404);
  });

  it("lets the Reviewer put a question with ask_teammate, and waits for that dialogue before it decides", async () => {
    const { review, talks, log } = await runReview({}, { verdict: approveFrom(1), satisfied: () => true, reviewerAsks: true });
    expect(talks).toEqual([
      expect.objectContaining({ reason: "question", topic: "What does it return for an empty sentence?", status: "resolved" }),
    ]);
    // Version 1 had no verdict (the Reviewer only asked): a second round, after the dialogue.
    expect(review).toMatchObject({ status: "approved", round: 2, codeVersion: 2 });
    const order = ["review.code", "dialogue.opened", "dialogue.closed", "review.code", "review.closed"];
    expect(log.map((row) => row.type).filter((type) => order.includes(type))).toEqual(order);
  });

  it("opens no dialogue when dialogues are off (0 rounds)", async () => {
    const { review, talks, log } = await runReview({ dialogue_max_rounds: 0 }, { verdict: approveFrom(2), satisfied: () => true });
    expect(talks).toEqual([]);
    expect(log.some((row) => row.type.startsWith("dialogue."))).toBe(false);
    expect(review.status).toBe("approved");
  });

  it("ends 'not approved' with the issues left after three rounds without consensus, a normal end of its workflow", async () => {
    const { review, log } = await runReview({ dialogue_max_rounds: 0 }, { verdict: approveFrom(99), satisfied: () => true });
    expect(review).toMatchObject({ status: "not_approved", round: 3, codeVersion: 3 });
    const last = log.find((row) => row.type === "review.closed")!.payload;
    expect(last).toMatchObject({
      outcome: "not_approved",
      rounds: 3,
      remainingIssues: [{ severity: "major", text: "Empty input is not handled." }],
    });
    const [closing] = await context.database.db
      .select()
      .from(events)
      .where(and(eq(events.roomId, review.roomId), eq(events.type, "review.closed")));
    expect(closing!.status).toBe("success");
    expect((await readWorkflow(context.database.db, review.roomId, review.correlationId)).status).toBe("complete");
  });

  it("does not take an approval that lists a major issue as consensus", async () => {
    const approvesWithMajor = () => ({
      verdict: "approve" as const,
      issues: [{ severity: "major", text: "Empty input is not handled." }],
      openQuestions: [],
    });
    const { review, log } = await runReview(
      { dialogue_max_rounds: 0, max_review_rounds: 2 },
      { verdict: approvesWithMajor, satisfied: () => true },
    );
    expect(review).toMatchObject({ status: "not_approved", round: 2, codeVersion: 2 });
    expect(log.filter((row) => row.type === "review.verdict").map((row) => (row.payload as { verdict: string }).verdict)).toEqual([
      "approve",
      "approve",
    ]);
    expect(log.find((row) => row.type === "review.closed")!.payload).toMatchObject({ remainingIssues: [{ severity: "major" }] });
  });

  it("lets a Reviewer without tools approve only with a VERDICT: APPROVE line, never by a word in its prose", async () => {
    const says = (version: number) =>
      version === 1 ? "Looks approved to me, nice and short." : "The empty input is handled now.\nVERDICT: APPROVE";
    const { review, log, talks } = await runReview({}, { verdict: approveFrom(1), satisfied: () => true, reviewerSays: says });
    expect(review).toMatchObject({ status: "approved", round: 2, codeVersion: 2 });
    expect(talks).toEqual([]);
    const verdicts = log.filter((row) => row.type === "review.verdict").map((row) => row.payload);
    expect(verdicts).toEqual([
      expect.objectContaining({ version: 1, verdict: "changes", issues: [{ severity: "major", text: "The review stated no verdict." }] }),
      expect.objectContaining({ version: 2, verdict: "approve", issues: [] }),
    ]);
  });

  it("takes the VERDICT line of a Reviewer without tools in its reply to the Coder, and only that line", async () => {
    const asks = () => "Coder, what does it return for an empty sentence?\nVERDICT: CHANGES";
    const approvesInReply = await runReview(
      {},
      {
        verdict: approveFrom(1),
        satisfied: () => true,
        reviewerSays: asks,
        reviewerRepliesSay: () => "Thanks, that clarifies it.\nVERDICT: APPROVE",
      },
    );
    expect(approvesInReply.talks).toEqual([expect.objectContaining({ status: "resolved", rounds: 1, reason: "vocative" })]);
    // Approved after talking to the Coder, without another version.
    expect(approvesInReply.review).toMatchObject({ status: "approved", round: 1, codeVersion: 1 });
    const types = approvesInReply.log.map((row) => row.type);
    const order = [
      "review.code",
      "review.verdict",
      "dialogue.opened",
      "dialogue.message",
      "dialogue.message",
      "dialogue.closed",
      "review.verdict",
      "review.closed",
    ];
    expect(types.filter((type) => order.includes(type))).toEqual(order);
    expect(approvesInReply.log.filter((row) => row.type === "review.verdict").map((row) => row.payload)).toEqual([
      expect.objectContaining({ version: 1, round: 1, verdict: "changes" }),
      expect.objectContaining({ version: 1, round: 1, verdict: "approve", issues: [] }),
    ]);
    // Verdicts stated in words are for the Coder too: the review's is followed by another version (or the close), the reply's by the dialogue's end.
    expect(
      approvesInReply.log
        .filter((row) => row.type === "review.verdict")
        .map(({ agent, targetAgent, nextSteps }) => ({ agent, targetAgent, nextSteps })),
    ).toEqual([
      { agent: approvesInReply.idOf("reviewer"), targetAgent: approvesInReply.idOf("coder"), nextSteps: ["review.code", "review.closed"] },
      { agent: approvesInReply.idOf("reviewer"), targetAgent: approvesInReply.idOf("coder"), nextSteps: ["dialogue.closed"] },
    ]);

    // "Approved" in its prose is no verdict: the review goes on to a second version.
    const saysApproved = await runReview(
      {},
      {
        verdict: approveFrom(1),
        satisfied: () => true,
        reviewerSays: (version) => (version === 1 ? asks() : "VERDICT: APPROVE"),
        reviewerRepliesSay: () => "Thanks, that clarifies it. Approved.",
      },
    );
    expect(saysApproved.talks).toEqual([expect.objectContaining({ status: "resolved" })]);
    expect(saysApproved.review).toMatchObject({ status: "approved", round: 2, codeVersion: 2 });
    expect(
      saysApproved.log.filter((row) => row.type === "review.verdict").map((row) => (row.payload as { verdict: string }).verdict),
    ).toEqual(["changes", "approve"]);
  });

  it("opens a dialogue from the room's own concern phrases in a review that does not approve", async () => {
    const says = (version: number) => (version === 1 ? "It is unclear to me. The loop smells off.\nVERDICT: CHANGES" : "VERDICT: APPROVE");
    const { review, talks } = await runReview(
      { concern_phrases: ["smells off"] },
      { verdict: approveFrom(1), satisfied: () => true, reviewerSays: says },
    );
    expect(review.status).toBe("approved");
    // "unclear" is a default phrase, not one of this room's: the sentence with the room's phrase is the topic.
    expect(talks).toEqual([expect.objectContaining({ reason: "concern", topic: "The loop smells off.", status: "resolved" })]);
  });

  it("plays the whole workflow offline: a brief, the Coder ready, two versions, a two-round dialogue, approval", async () => {
    const worker = await startTestWorker(context.database);
    try {
      const { roomId } = await reviewRoom();
      const seat = await call(takeSeat, { url: "/x", method: "POST", params: { roomId }, body: { displayName: "Ada" } });
      const cookie = cookieFrom(seat.headers.get("set-cookie"));
      expect((await call(startRoute, { url: "/x", method: "POST", params: { roomId }, body: { task: "" }, cookie })).status).toBe(400);
      expect((await call(startRoute, { url: "/x", method: "POST", params: { roomId }, body: { task: "Count words" } })).status).toBe(403);
      const started = await call(startRoute, {
        url: "/x",
        method: "POST",
        params: { roomId },
        body: { task: "Write a function that counts the words in a sentence" },
        cookie,
      });
      expect(started.status).toBe(201);
      const review = await closed(roomId);
      expect(review).toMatchObject({ status: "approved", round: 2, codeVersion: 2 });
      const talks = await context.database.db.select().from(dialogues).where(eq(dialogues.roomId, roomId));
      expect(talks).toEqual([expect.objectContaining({ status: "resolved", rounds: 2 })]);
      const log = await typesOf(roomId);
      const messages = log
        .filter((row) => row.type === "dialogue.message")
        .map((row) => row.payload as { round: number; text: string; costKnown: boolean });
      expect(messages.map((message) => message.round)).toEqual([1, 1, 2, 2]);
      expect(messages.every((message) => message.costKnown)).toBe(true);
      const ready = log.find((row) => row.type === "review.ready")!.payload as { text: string };
      expect(ready.text).toMatch(/^Ready: I will write countWords as one TypeScript function/);
      // One workflow from the brief to the approval.
      const all = await context.database.db.select().from(runs).where(eq(runs.roomId, roomId)).orderBy(asc(runs.createdAt));
      expect(new Set(all.map((run) => run.correlationId)).size).toBe(1);
      expect(all.map((run) => run.purpose?.kind).slice(0, 4)).toEqual(["brief", "ready", "code", "review"]);
    } finally {
      await worker.stop();
    }
  });

  it("refuses a room without the three personas", async () => {
    const { room } = await createRoom(context.database.db, { title: "Canvas", template: "creative-canvas" }, {});
    await expect(startBuildReview(context.database.db, room.id, "Count words", { id: "human:ada", name: "Ada" })).rejects.toThrow(
      /needs an architect, a coder and a reviewer/,
    );
  });
});
