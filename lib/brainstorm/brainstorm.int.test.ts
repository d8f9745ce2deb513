import { randomUUID } from "node:crypto";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { POST as cancelRoute } from "@/app/api/rooms/[roomId]/brainstorms/[brainstormId]/cancel/route";
import { POST as decideRoute } from "@/app/api/rooms/[roomId]/brainstorms/[brainstormId]/gate/route";
import { GET as deliverableRoute } from "@/app/api/rooms/[roomId]/brainstorms/[brainstormId]/deliverable/route";
import { GET as latestRoute, POST as startRoute } from "@/app/api/rooms/[roomId]/brainstorms/route";
import { POST as sendRoute } from "@/app/api/rooms/[roomId]/commands/route";
import { POST as startRunRoute } from "@/app/api/rooms/[roomId]/runs/route";
import { POST as takeSeat } from "@/app/api/rooms/[roomId]/seat/route";
import type { Database } from "@/db";
import {
  type Brainstorm,
  agentNotes,
  agents,
  boardEntries,
  brainstorms,
  broadcastResponses,
  broadcasts,
  canvasEdges,
  canvasNodes,
  dialogues,
  events,
  runs,
} from "@/db/schema";
import { estimateTokens } from "@/lib/agents/build-prompt";
import { cancelRun } from "@/lib/agents/cancel-run";
import { claimNextRun } from "@/lib/agents/claim-run";
import { loadPromptContext } from "@/lib/agents/load-prompt-context";
import { enqueueRun } from "@/lib/agents/enqueue-run";
import { type StopReason, executeRun } from "@/lib/agents/execute-run";
import { createAskTeammateTool } from "@/lib/dialogue/ask-teammate-tool";
import { createCanvasTools } from "@/lib/agents/tools/canvas-tools";
import { createBoardTools } from "@/lib/agents/tools/board-tools";
import { createRequestTools } from "@/lib/agents/tools/request-agent";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { getEnv } from "@/lib/env";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import { resolveModel } from "@/lib/models/registry";
import { type BrainstormDto, stageDefinition } from "@/lib/protocol/brainstorm";
import { RoomBus } from "@/lib/realtime/bus";
import { createRoom } from "@/lib/rooms/create-room";
import { type RoomSettingsPatch, parseRoomSettings } from "@/lib/rooms/room-settings";
import { askOthers } from "@/lib/broadcast/ask-others";
import { activeRun } from "@/test/active-run";
import { broadcastDeps } from "@/test/broadcasts";
import { startTestWorker } from "@/test/agents";
import { runRow } from "@/test/builders";
import { type ChatReply, type ChatRequest, startChatServer } from "@/test/chat-server";
import { eventually } from "@/test/fixtures";
import { call, cookieFrom } from "@/test/http";
import { mockResolver, scriptedSteps, setAgentModel, textStep, toolStep } from "@/test/mock-models";
import { createTestDatabase } from "@/test/test-database";
import { useTestRuntime } from "@/test/test-runtime";
import { cancelBrainstorm } from "./cancel-brainstorm";
import { decideGate } from "./decide-gate";
import { startBrainstorm } from "./start-brainstorm";
import { sweepStageLimits } from "./sweep-stage-limits";
import { clusterNamed } from "@/lib/models/script/brainstorm/content";
import { readProblem } from "@/lib/models/script/brainstorm/problem";
import { ideaLine } from "./stage-context";
import { readWork } from "./work";
import { detectAddressee } from "@/lib/dialogue/detect";
import { listWorkflows, readWorkflow } from "@/lib/workflows/read-workflow";

const context = useTestRuntime();
afterEach(() => {
  vi.unstubAllEnvs();
});
const ADA = { id: "human:ada", name: "Ada" };
const PROBLEM = "How might we cut onboarding time for new engineers?";

async function brainstormRoom(database: Database = context.database, settings: RoomSettingsPatch = {}) {
  const { room, agents: team } = await createRoom(database.db, { title: "Onboarding", template: "brainstorm" }, { settings });
  return { roomId: room.id, team };
}

async function stateOf(roomId: string, database: Database = context.database): Promise<Brainstorm> {
  const [row] = await database.db
    .select()
    .from(brainstorms)
    .where(eq(brainstorms.roomId, roomId))
    .orderBy(desc(brainstorms.createdAt))
    .limit(1);
  return row!;
}

/** Waits until the brainstorm is in one of `status` with no run of the room queued or running. */
async function settled(roomId: string, status: BrainstormDto["status"][], database: Database = context.database) {
  return eventually(async () => {
    const row = await stateOf(roomId, database);
    expect(status).toContain(row.status);
    const active = await database.db
      .select({ id: runs.id })
      .from(runs)
      .where(and(eq(runs.roomId, roomId), inArray(runs.status, ["queued", "running"])));
    expect(active).toHaveLength(0);
    return row;
  }, 30_000);
}

async function eventTypes(roomId: string) {
  const rows = await context.database.db
    .select({ type: events.type, payload: events.payload })
    .from(events)
    .where(eq(events.roomId, roomId))
    .orderBy(asc(events.seq));
  return rows;
}

const statuses = (row: Brainstorm) => Object.fromEntries(Object.entries(row.stages).map(([key, stage]) => [key, stage.status]));

async function stageRuns(roomId: string, stage: string) {
  return context.database.db
    .select()
    .from(runs)
    .where(and(eq(runs.roomId, roomId), sql`${runs.purpose}->>'stage' = ${stage}`))
    .orderBy(asc(runs.createdAt));
}

async function seatIn(roomId: string, name = "Ada") {
  const seat = await call(takeSeat, { url: "/x", method: "POST", params: { roomId }, body: { displayName: name } });
  return cookieFrom(seat.headers.get("set-cookie"));
}

function decide(roomId: string, brainstormId: string, body: unknown, cookie?: string) {
  return call(decideRoute, { url: "/x", method: "POST", params: { roomId, brainstormId }, body, cookie });
}

/**
 * A stand-in OpenAI-compatible provider playing some of the brainstorm's personas (the rest stay
 * on the offline model): `answer` gets the persona and the request, and returns the reply, or
 * null to finish its turn.
 */
async function standIn(
  personas: string[],
  roomId: string,
  answer: (persona: string, request: ChatRequest) => ChatReply | null | Promise<ChatReply | null>,
) {
  const server = await startChatServer(async (request) => {
    const system = String(request.messages.find((message) => message.role === "system")?.content ?? "");
    const persona = system.match(/\(persona: ([a-z0-9-]+)\)/)?.[1] ?? "";
    const replied = request.messages.some((message) => message.role === "tool");
    return (replied ? null : await answer(persona, request)) ?? { text: "Done." };
  });
  const team = await context.database.db.select().from(agents).where(eq(agents.roomId, roomId));
  for (const member of team.filter((each) => personas.includes(each.persona)))
    await setAgentModel(context.database, member.id, "openai-compatible:stand-in");
  const env = { ...getEnv(), OPENAI_COMPATIBLE_BASE_URL: server.baseURL, OPENAI_COMPATIBLE_API_KEY: "k" };
  // The server is configured with it too: a person's message may start a run on it.
  vi.stubEnv("OPENAI_COMPATIBLE_BASE_URL", server.baseURL);
  vi.stubEnv("OPENAI_COMPATIBLE_API_KEY", "k");
  const worker = await startTestWorker(context.database, {
    resolveModel: (spec, agent) => resolveModel(spec, { env, scriptPaceMs: 0, agent }),
  });
  return {
    server,
    async stop() {
      await worker.stop();
      await server.close();
    },
  };
}

const ideas = (prefix: string, count: number) => ({
  toolCall: {
    name: "submit_ideas",
    arguments: {
      ideas: Array.from({ length: count }, (_, index) => ({
        title: `${prefix} idea ${index + 1}`,
        oneLiner: `${prefix} one-liner ${index + 1} about onboarding.`,
      })),
    },
  },
});

describe("the brainstorm", () => {
  it("takes a problem through all nine stages, the gate approved through the API, and offers the deliverable", async () => {
    const worker = await startTestWorker(context.database);
    try {
      const { roomId } = await brainstormRoom();
      const cookie = await seatIn(roomId);
      const started = await call(startRoute, { url: "/x", method: "POST", params: { roomId }, body: { problem: PROBLEM }, cookie });
      expect(started.status).toBe(201);
      const atGate = await settled(roomId, ["awaiting_gate"]);
      expect(statuses(atGate)).toMatchObject({
        framing: "done",
        divergent: "done",
        precedents: "done",
        convergent: "done",
        fact_check: "done",
        pushback: "done",
        prioritization: "done",
        gate: "awaiting",
      });
      const shown = await call(latestRoute, { url: "/x", method: "GET", params: { roomId } });
      const ranking = (shown.body.brainstorm as BrainstormDto).ranking;
      expect(ranking.length).toBeGreaterThanOrEqual(3);
      expect(ranking.map((candidate) => candidate.score)).toEqual([...ranking.map((candidate) => candidate.score)].sort((a, b) => b - a));
      // Each stage's run is given the problem, its stage's goal and who works beside it; an ideator, no one.
      const team = await context.database.db.select().from(agents).where(eq(agents.roomId, roomId));
      const openingOf = async (stage: string, persona: string) => {
        const member = team.find((agent) => agent.persona === persona)!;
        const run = (await stageRuns(roomId, stage)).find((each) => each.agentId === member.id)!;
        return JSON.stringify(run.transcript.slice(0, 2));
      };
      const historian = await openingOf("precedents", "historian");
      expect(historian).toContain(`Problem: ${PROBLEM}`);
      expect(historian).toContain(`Stage goal: ${stageDefinition("precedents").goal}`);
      expect(historian).toContain("Co-participants");
      expect(historian).toContain(`${team.find((agent) => agent.persona === "analogist")!.name} (persona: analogist)`);
      const ideator = await openingOf("divergent", "contrarian");
      expect(ideator).toContain(`Problem: ${PROBLEM}`);
      expect(ideator).not.toContain("Co-participants");

      const approved = await decide(roomId, atGate.id, { action: "approve", round: atGate.gateRound }, cookie);
      expect(approved.status).toBe(200);
      const done = await settled(roomId, ["complete"]);
      expect(statuses(done)).toMatchObject({ gate: "done", review: "done", presentation: "done" });
      expect(done.chosenCandidateId).toBe(ranking[0]!.id);

      const file = await deliverableRoute(new Request("http://x/"), { params: Promise.resolve({ roomId, brainstormId: done.id }) });
      expect(file.headers.get("content-type")).toMatch(/text\/markdown/);
      expect(file.headers.get("content-disposition")).toContain("how-might-we-cut-onboarding-time-for-new-engineers.md");
      const markdown = await file.text();
      for (const heading of ["Recommendation", "Reasons", "Steps", "Risks", "Alternatives"]) expect(markdown).toContain(`## ${heading}`);
      // Written from the problem's own words.
      expect(markdown).toMatch(/new engineers/);
      expect(markdown).toMatch(/onboarding/);

      const log = await eventTypes(roomId);
      const types = log.map((row) => row.type);
      expect(types.filter((type) => type === "brainstorm.ideas_released")).toHaveLength(1);
      // Every transition is an event: each stage started and ended, the gate opened and was decided.
      const stageEvents = log
        .filter((row) => row.type === "brainstorm.stage")
        .map((row) => `${(row.payload as { stage: string }).stage}:${(row.payload as { status: string }).status}`);
      for (const stage of [
        "framing",
        "divergent",
        "precedents",
        "convergent",
        "fact_check",
        "pushback",
        "prioritization",
        "review",
        "presentation",
      ]) {
        expect(stageEvents).toContain(`${stage}:running`);
        expect(stageEvents).toContain(`${stage}:done`);
      }
      expect(types).toContain("brainstorm.gate_opened");
      expect(types).toContain("brainstorm.gate_decided");
      const completed = types.indexOf("brainstorm.completed");
      expect(completed).toBeGreaterThan(0);
      expect(types.slice(completed + 1).filter((type) => type.startsWith("brainstorm."))).toEqual([]);
      // One lane per stage on the canvas, the ideas in it, linked to the candidates they fed.
      const nodes = await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId));
      expect(nodes.filter((node) => node.kind === "stage")).toHaveLength(9);
      expect(nodes.filter((node) => node.kind === "idea").length).toBeGreaterThanOrEqual(20);
      expect(nodes.filter((node) => node.kind === "candidate").length).toBeGreaterThanOrEqual(5);
      expect(nodes.filter((node) => node.kind === "deliverable")).toHaveLength(1);
      // Links show what fed what, stage to stage.
      const kindOf = new Map(nodes.map((node) => [node.id, node.kind]));
      const authorOf = new Map(nodes.map((node) => [node.id, node.authorId]));
      const links = (await context.database.db.select().from(canvasEdges).where(eq(canvasEdges.roomId, roomId))).map((edge) => ({
        ...edge,
        from: kindOf.get(edge.sourceId),
        to: kindOf.get(edge.targetId),
      }));
      const between = (from: string, to: string) => links.filter((link) => link.from === from && link.to === to);
      // The framing (both framers' nodes) to the ideas of every ideator and the precedents of both researchers.
      const framing = nodes.filter((node) => node.kind === "framing");
      const framed = between("framing", "idea");
      expect(new Set(framed.map((link) => link.sourceId))).toEqual(new Set(framing.map((node) => node.id)));
      expect(new Set(framed.map((link) => authorOf.get(link.targetId))).size).toBe(4);
      expect(new Set(between("framing", "precedent").map((link) => authorOf.get(link.targetId))).size).toBe(2);
      expect([...framed, ...between("framing", "precedent")].every((link) => link.label === "framed")).toBe(true);
      // Precedents to the candidates that draw on them, beside the ideas they cluster.
      const informs = between("precedent", "candidate");
      expect(informs.length).toBeGreaterThan(0);
      expect(informs.every((link) => link.label === "informs")).toBe(true);
      for (const link of informs) {
        const precedentId = nodes.find((node) => node.id === link.sourceId)!.text.split(" · ")[0]!;
        expect(nodes.find((node) => node.id === link.targetId)!.text).toMatch(new RegExp(`Draws on: .*\\b${precedentId}\\b`));
      }
      expect(between("idea", "candidate").length).toBeGreaterThan(0);
      // The approved candidate to the proposal, and the proposal to the deliverable.
      expect(between("candidate", "proposal").map((link) => link.label)).toEqual(["approved"]);
      expect(between("proposal", "deliverable").map((link) => link.label)).toEqual(["presented in"]);
    } finally {
      await worker.stop();
    }
  });

  it("plays every persona from the problem's own words on the offline model: two problems, two rankings, two sets of findings", async () => {
    const worker = await startTestWorker(context.database);
    try {
      const problems = [
        { problem: "Reduce food waste in our office cafeteria", own: /food waste|cafeteria/i, other: /onboarding|engineer/i },
        { problem: PROBLEM, own: /onboarding|new engineers/i, other: /food waste|cafeteria/i },
      ];
      const played = await Promise.all(
        problems.map(async ({ problem }) => {
          const { roomId } = await brainstormRoom();
          await startBrainstorm(context.database.db, roomId, problem, ADA);
          return { roomId, problem };
        }),
      );
      const results = [];
      for (const [index, { roomId, problem }] of played.entries()) {
        const { own, other } = problems[index]!;
        const gate = await settled(roomId, ["awaiting_gate"]);
        const shown = (await call(latestRoute, { url: "/x", method: "GET", params: { roomId } })).body.brainstorm as BrainstormDto;
        await decideGate(context.database.db, roomId, gate.id, { action: "approve", round: gate.gateRound }, ADA);
        const done = await settled(roomId, ["complete"]);
        const nodes = await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId));
        const texts = nodes.map((node) => node.text);
        // No template left unfilled, nothing borrowed from another problem.
        for (const text of texts) {
          expect(text).not.toMatch(/\{[a-zA-Z]+\}/);
          expect(text).not.toMatch(other);
        }
        const ideaTexts = nodes.filter((node) => node.kind === "idea").map((node) => node.text.toLowerCase());
        const aboutIt = ideaTexts.filter((text) => own.test(text));
        expect(aboutIt.length / ideaTexts.length).toBeGreaterThanOrEqual(0.8);
        expect(done.deliverable).toMatch(new RegExp(`^# ${problem.replace(/^How might we /, "").replace(/\?$/, "")}`, "i"));
        expect(done.deliverable).toMatch(own);
        // Ideas differ from one another.
        expect(new Set(ideaTexts).size).toBe(ideaTexts.length);
        // The clusters are named in the problem's words, and the Synthesizer's and Strategist's findings speak of it.
        const work = await readWork(context.database.db, done.id);
        const clusters = work.candidates.filter((candidate) => !candidate.combination).map((candidate) => candidate.cluster);
        expect(clusters.length).toBeGreaterThanOrEqual(3);
        for (const cluster of clusters) expect(cluster).toMatch(own);
        const personaOf = new Map(
          (await context.database.db.select().from(agents).where(eq(agents.roomId, roomId))).map((agent) => [agent.id, agent.persona]),
        );
        const findings = (
          await context.database.db
            .select()
            .from(boardEntries)
            .where(and(eq(boardEntries.roomId, roomId), eq(boardEntries.kind, "finding")))
        ).map((entry) => ({
          persona: personaOf.get(entry.agentId ?? ""),
          finding: String(entry.content.finding),
        }));
        const said = (persona: string) => findings.find((entry) => entry.persona === persona)!.finding;
        expect(said("synthesizer")).toMatch(own);
        expect(said("strategist")).toMatch(own);
        for (const entry of findings) expect(entry.finding).not.toMatch(other);
        // What kind of answer each ranked candidate is: its cluster as the problem names it.
        const words = readProblem(problem);
        const kinds = shown.ranking.map(
          (ranked) => clusterNamed(work.candidates.find((candidate) => candidate.id === ranked.id)!.cluster, words)?.kind ?? "combination",
        );
        results.push({ kinds, synthesizer: said("synthesizer"), strategist: said("strategist") });
      }
      const [waste, onboarding] = results;
      // Each problem ranks the kinds of answer its own way: making food waste visible leads one, removing the waiting in onboarding the other.
      expect(waste!.kinds[0]).toBe("visible");
      expect(onboarding!.kinds[0]).toBe("wait");
      expect(waste!.kinds).not.toEqual(onboarding!.kinds);
    } finally {
      await worker.stop();
    }
  });

  it("refuses an empty problem, one over 4,000 characters, spectators, and a second brainstorm while one runs", async () => {
    const { roomId } = await brainstormRoom();
    const cookie = await seatIn(roomId);
    const post = (body: unknown, withCookie: string | undefined = cookie) =>
      call(startRoute, { url: "/x", method: "POST", params: { roomId }, body, cookie: withCookie });
    const empty = await post({ problem: "   " });
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toMatch(/Describe the problem/);
    const long = await post({ problem: "x".repeat(4001) });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toMatch(/4000 characters/);
    expect((await call(startRoute, { url: "/x", method: "POST", params: { roomId }, body: { problem: PROBLEM } })).status).toBe(403);
    expect(await context.database.db.select().from(brainstorms).where(eq(brainstorms.roomId, roomId))).toHaveLength(0);
    expect((await post({ problem: PROBLEM })).status).toBe(201);
    const again = await post({ problem: "Another one" });
    expect(again.status).toBe(409);
    expect(await context.database.db.select().from(brainstorms).where(eq(brainstorms.roomId, roomId))).toHaveLength(1);
  });

  it("lets participants drop, redirect, deepen and approve at the gate; spectators and late deciders are refused", async () => {
    const worker = await startTestWorker(context.database);
    try {
      const { roomId } = await brainstormRoom();
      const ada = await seatIn(roomId, "Ada");
      const bea = await seatIn(roomId, "Bea");
      await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
      let gate = await settled(roomId, ["awaiting_gate"]);
      const first = (await call(latestRoute, { url: "/x", method: "GET", params: { roomId } })).body.brainstorm as BrainstormDto;
      const [top, second] = first.ranking;

      // A spectator sees the gate but cannot act; a bad action changes nothing.
      expect((await decide(roomId, gate.id, { action: "approve", round: gate.gateRound })).status).toBe(403);
      expect((await decide(roomId, gate.id, { action: "drop", round: gate.gateRound, candidateId: "C99" }, ada)).status).toBe(400);
      expect((await decide(roomId, gate.id, { action: "fly", round: gate.gateRound }, ada)).status).toBe(400);

      const gateOpenings = async () =>
        (await eventTypes(roomId))
          .filter((row) => row.type === "brainstorm.gate_opened")
          .map((row) => row.payload as { round: number; ranking: { id: string }[]; brainstorm: BrainstormDto });
      expect((await gateOpenings()).map((opening) => opening.round)).toEqual([1]);

      // Drop: re-ranked at once, and the gate opens its next round, announced as the first was.
      const dropped = await decide(roomId, gate.id, { action: "drop", round: gate.gateRound, candidateId: top!.id }, ada);
      expect(dropped.status).toBe(200);
      expect((dropped.body.brainstorm as BrainstormDto).ranking.map((candidate) => candidate.id)).not.toContain(top!.id);
      expect((dropped.body.brainstorm as BrainstormDto).ranking[0]!.id).toBe(second!.id);
      expect(dropped.body.brainstorm).toMatchObject({ status: "awaiting_gate", gateRound: 2 });
      const openings = await gateOpenings();
      expect(openings.map((opening) => opening.round)).toEqual([1, 2]);
      expect(openings[1]!.ranking.map((candidate) => candidate.id)).toEqual(
        (dropped.body.brainstorm as BrainstormDto).ranking.map((candidate) => candidate.id),
      );
      expect(openings[1]!.brainstorm).toMatchObject({ gateRound: 2, stages: { gate: { status: "awaiting", passes: 2 } } });
      // The new round waits from its own opening, and is announced after the decision that opened it.
      expect(Date.parse(openings[1]!.brainstorm.gateOpenedAt!)).toBeGreaterThan(Date.parse(openings[0]!.brainstorm.gateOpenedAt!));
      const order = (await eventTypes(roomId)).map((row) => row.type).filter((type) => type.startsWith("brainstorm.gate_"));
      expect(order).toEqual(["brainstorm.gate_opened", "brainstorm.gate_decided", "brainstorm.gate_opened"]);
      // Bea decides on the round Ada already decided: 409 naming Ada.
      const late = await decide(roomId, gate.id, { action: "approve", round: gate.gateRound }, bea);
      expect(late.status).toBe(409);
      expect(late.body.error.message).toMatch(/Ada decided round 1 of the gate first \(dropped/);
      gate = await stateOf(roomId);
      expect(gate).toMatchObject({ status: "awaiting_gate", gateRound: 2 });
      // Refused decisions open no round.
      expect((await gateOpenings()).map((opening) => opening.round)).toEqual([1, 2]);

      // Redirect: prioritization runs again with the comment, then the gate opens again.
      const redirected = await decide(
        roomId,
        gate.id,
        { action: "redirect", round: 2, comment: "Weigh speed more: we need results this quarter." },
        bea,
      );
      expect(redirected.status).toBe(200);
      gate = await settled(roomId, ["awaiting_gate"]);
      expect(gate.gateRound).toBe(3);
      expect(gate.stages.prioritization.passes).toBe(2);
      const redirectRun = (await stageRuns(roomId, "prioritization")).at(-1)!;
      expect(redirectRun.prompt).toContain("Weigh speed more");

      // Deepen: fact checking again on that candidate only, then prioritization, then the gate.
      const deepened = await decide(roomId, gate.id, { action: "deepen", round: 3, candidateId: second!.id }, ada);
      expect(deepened.status).toBe(200);
      gate = await settled(roomId, ["awaiting_gate"]);
      expect(gate.gateRound).toBe(4);
      expect(gate.stages.fact_check.passes).toBe(2);
      // The stage chips count out of what each pass covered: the deepened candidate, and the candidates still in play.
      const deepenedShown = (await call(latestRoute, { url: "/x", method: "GET", params: { roomId } })).body.brainstorm as BrainstormDto;
      expect(deepenedShown.stages.fact_check).toMatchObject({ count: 1, total: 1 });
      expect(deepenedShown.stages.prioritization).toMatchObject({
        count: deepenedShown.ranking.length,
        total: deepenedShown.ranking.length,
      });
      expect(deepenedShown.stages.pushback.total).toBe(deepenedShown.stages.convergent.count);
      const deepRuns = (await stageRuns(roomId, "fact_check")).filter((run) => (run.purpose as { pass: number }).pass === 2);
      expect(deepRuns).toHaveLength(2);
      for (const run of deepRuns) expect(run.prompt).toContain(`Go deeper on candidate ${second!.id} only`);

      // A decision in the wrong state: after approval the gate is closed.
      expect((await decide(roomId, gate.id, { action: "approve", round: 4 }, ada)).status).toBe(200);
      const closed = await decide(roomId, gate.id, { action: "approve", round: 5 }, ada);
      expect(closed.status).toBe(409);
      expect(closed.body.error.message).toMatch(/not waiting at the gate/);
      const done = await settled(roomId, ["complete"]);
      expect(done.decisions.map((decision) => decision.action)).toEqual(["drop", "redirect", "deepen", "approve"]);
      expect((await gateOpenings()).map((opening) => opening.round)).toEqual([1, 2, 3, 4]);
    } finally {
      await worker.stop();
    }
  });

  it("lets only admins decide when the room says so", async () => {
    const worker = await startTestWorker(context.database);
    try {
      const { roomId } = await brainstormRoom(context.database, { brainstorm_gate: "admins" });
      const ada = await seatIn(roomId);
      await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
      const gate = await settled(roomId, ["awaiting_gate"]);
      const refused = await decide(roomId, gate.id, { action: "approve", round: gate.gateRound }, ada);
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toMatch(/Only an admin/);
      const admin = await call(decideRoute, {
        url: "/x",
        method: "POST",
        params: { roomId, brainstormId: gate.id },
        body: { action: "approve", round: gate.gateRound },
        headers: { authorization: `Bearer ${getEnv().ADMIN_TOKEN ?? (await import("@/lib/auth/admin")).resolveAdminToken()}` },
      });
      expect(admin.status).toBe(200);
      await settled(roomId, ["complete"]);
    } finally {
      await worker.stop();
    }
  });

  it("never lets a divergent thinker see another's work: a canary in one ideator's ideas reaches no other ideator", async () => {
    const ideators = ["wild-ideator", "cross-pollinator", "first-principles-thinker", "contrarian"];
    const { roomId, team } = await brainstormRoom();
    const nameOf = (persona: string) => team.find((agent) => agent.persona === persona)!.name;
    // Two ideators fall short at first, so the stage runs them again with what they lack.
    const fewAtFirst = ["wild-ideator", "contrarian"];
    const provider = await standIn([...ideators, "synthesizer"], roomId, (persona, request) => {
      const user = JSON.stringify(request.messages);
      const again = user.includes("asked again");
      if (ideators.includes(persona))
        return ideas(`CANARY-${persona}${again ? " again" : ""}`, fewAtFirst.includes(persona) && !again ? 3 : 6);
      if (persona === "synthesizer" && user.includes("Brainstorm stage 3")) return { text: "Seen." };
      return null;
    });
    try {
      await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
      // Once divergent thinking is over, everything it made is released to the next stages.
      await eventually(async () => expect((await stateOf(roomId)).stages.convergent.passes).toBeGreaterThanOrEqual(1), 30_000);
      await eventually(
        () => expect(provider.server.requests.some((request) => JSON.stringify(request).includes("Brainstorm stage 3"))).toBe(true),
        30_000,
      );
      const reruns = (await stageRuns(roomId, "divergent")).filter((run) => (run.purpose as { rerun: boolean }).rerun);
      expect(reruns.map((run) => run.agentId).sort()).toEqual(
        team
          .filter((agent) => fewAtFirst.includes(agent.persona))
          .map((agent) => agent.id)
          .sort(),
      );
      for (const run of reruns)
        expect(run.prompt).toContain("You are asked again because the stage fell short: you have 3 ideas of at least 5.");
      const persona = (request: ChatRequest) =>
        String(request.messages.find((message) => message.role === "system")?.content ?? "").match(/\(persona: ([a-z0-9-]+)\)/)?.[1];
      const ideatorRequests = provider.server.requests.filter((request) => ideators.includes(persona(request) ?? ""));
      expect(ideatorRequests.length).toBeGreaterThanOrEqual(12);
      expect(ideatorRequests.filter((request) => JSON.stringify(request).includes("asked again")).length).toBeGreaterThanOrEqual(2);
      for (const request of ideatorRequests) {
        const own = persona(request)!;
        const text = JSON.stringify(request);
        for (const other of ideators.filter((each) => each !== own)) {
          // Not their ideas (in prompts or tool results), not their names, not a tally of them.
          expect(text).not.toContain(`CANARY-${other}`);
          expect(text).not.toContain(other);
          expect(text.toLowerCase()).not.toContain(nameOf(other).toLowerCase());
        }
        expect(text).not.toMatch(/\b\d+ ideas in all\b/);
        // Nor that there are others: the goal and the lane heading it reads speak of its own ideas.
        expect(text).not.toMatch(/\bideators\b|each ideator|20–60/i);
      }
      // The canary check can fail: the Synthesizer, after the release, sees every ideator's ideas.
      const synthesis = JSON.stringify(provider.server.requests.find((request) => persona(request) === "synthesizer"));
      for (const ideator of ideators) expect(synthesis).toContain(`CANARY-${ideator}`);
      const released = (await eventTypes(roomId)).find((row) => row.type === "brainstorm.ideas_released")!.payload as { ideas: unknown[] };
      expect(released.ideas).toHaveLength(30);
      // Let it reach the gate, so no run of this room is left for the next test's worker.
      await settled(roomId, ["awaiting_gate"]);
    } finally {
      await provider.stop();
    }
  });

  it("holds the ideators' work back until its release: an ideator's own run sees none of the others', any other run none at all", async () => {
    const ideators = ["wild-ideator", "cross-pollinator", "first-principles-thinker", "contrarian"];
    const { roomId, team } = await brainstormRoom(context.database, { max_concurrent_runs: 8 });
    const agentOf = (persona: string) => team.find((agent) => agent.persona === persona)!;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const provider = await standIn(ideators, roomId, async (persona, request) => {
      if (!JSON.stringify(request.messages).includes("Brainstorm stage 1")) return null;
      // The Contrarian holds the stage open while the others have submitted.
      if (persona === "contrarian") await released;
      return ideas(`CANARY-${persona}`, 6);
    });
    const probe = (persona: string, marker: string) =>
      provider.server.requests.filter(
        (request) =>
          request.messages.some((message) => message.role === "system") &&
          JSON.stringify(request.messages).includes(marker) &&
          JSON.stringify(request.messages).includes(`(persona: ${persona})`),
      );
    try {
      await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
      const pollinator = agentOf("cross-pollinator");
      const ideaNodes = await eventually(async () => {
        const rows = await context.database.db
          .select()
          .from(canvasNodes)
          .where(and(eq(canvasNodes.roomId, roomId), eq(canvasNodes.authorId, pollinator.id)));
        expect(rows.length).toBe(6);
        return rows;
      }, 30_000);
      expect((await stateOf(roomId)).stages.divergent.status).toBe("running");
      // Requests the Cross-Pollinator left for the Wild Ideator and the Historian, a finding of the First-Principles Thinker.
      const entry = (author: string, change: Partial<typeof boardEntries.$inferInsert>) => ({
        id: randomUUID(),
        roomId,
        agentId: agentOf(author).id,
        agentName: agentOf(author).name,
        kind: "request" as const,
        content: {},
        createdAt: new Date(),
        expiresAt: new Date(Date.now() + 3600_000),
        ...change,
      });
      await context.database.db.insert(boardEntries).values([
        ...["wild-ideator", "historian"].map((target) =>
          entry("cross-pollinator", {
            content: { targetPersona: target, ask: "CANARY-cross-pollinator asks: build on my ideas" },
            targetPersona: target,
            requestStatus: "queued",
          }),
        ),
        entry("first-principles-thinker", {
          kind: "finding",
          content: { finding: "CANARY-first-principles-thinker found the root cause", severity: "high", nodeIds: [] },
          expiresAt: null,
        }),
      ]);
      const handIdeasTo = (persona: string, prompt: string) =>
        writeRoomEvents(context.database.db, roomId, (tx, emit, at) =>
          enqueueRun(tx, emit, {
            roomId,
            agentId: agentOf(persona).id,
            trigger: "human",
            requestedBy: ADA,
            prompt,
            selectedNodeIds: ideaNodes.map((node) => node.id),
            at,
          }),
        ).then(({ result }) => result!);
      // What a run was first given, from its transcript once it has ended.
      const openingOf = (runId: string) =>
        eventually(async () => {
          const [row] = await context.database.db.select().from(runs).where(eq(runs.id, runId));
          expect(row!.status).toBe("succeeded");
          return JSON.stringify(row!.transcript.slice(0, 2));
        }, 30_000);
      // A node of a shared kind (the framing's) the Cross-Pollinator wrote, and its edge to the framing, labelled with its idea.
      const [framing] = await context.database.db
        .select()
        .from(canvasNodes)
        .where(and(eq(canvasNodes.roomId, roomId), eq(canvasNodes.kind, "framing"), eq(canvasNodes.authorId, agentOf("cartographer").id)));
      const shared = { roomId, authorKind: "agent" as const, authorId: pollinator.id, authorName: pollinator.name };
      const smuggled = {
        id: randomUUID(),
        kind: "framing",
        text: "CANARY-cross-pollinator in the framing's kind",
        x: 0,
        y: -4000,
        ...shared,
      };
      await context.database.db.insert(canvasNodes).values(smuggled);
      await context.database.db
        .insert(canvasEdges)
        .values({ id: randomUUID(), sourceId: framing!.id, targetId: framing!.id, label: "CANARY-cross-pollinator's label", ...shared });
      // Nor may an ideator write into the framing the others read: its run refuses, and the framing stays as it was.
      const roster = await context.database.db.select().from(agents).where(eq(agents.roomId, roomId));
      const wild = roster.find((agent) => agent.persona === "wild-ideator")!;
      const wildTools = createCanvasTools(
        activeRun(context.database, { run: runRow({ roomId, agentId: wild.id }), agent: wild, team: roster }),
      );
      const edit = await wildTools.update_node.execute!(
        { nodeId: framing!.id, text: "CANARY-wild-ideator in the framing" },
        { toolCallId: "edit", messages: [], context: {} },
      );
      expect(edit).toEqual({ ok: false, error: expect.stringContaining("you may change only your own nodes") });
      const removal = await wildTools.delete_node.execute!({ nodeId: framing!.id }, { toolCallId: "remove", messages: [], context: {} });
      expect(removal).toMatchObject({ ok: false });
      const [unchanged] = await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.id, framing!.id));
      expect(unchanged!.text).toBe(framing!.text);
      await handIdeasTo("wild-ideator", "PROBE: look at the selected ideas.");
      const [seen] = await eventually(() => {
        const found = probe("wild-ideator", "PROBE: look at the selected ideas.");
        expect(found.length).toBeGreaterThan(0);
        return found;
      }, 30_000);
      const text = JSON.stringify(seen);
      // It reads its own ideas on the canvas; nothing of the Cross-Pollinator's ideas, request or name.
      expect(text).toContain("CANARY-wild-ideator");
      expect(text).not.toContain("CANARY-cross-pollinator");
      expect(text).not.toContain(pollinator.name);
      // Nor the First-Principles Thinker's finding.
      expect(text).not.toContain("CANARY-first-principles-thinker");
      // It still reads the framing.
      expect(text).toContain(`node ${framing!.id} [framing] by Cartographer`);

      // Any other agent — the Historian, whose stage runs beside — reads nothing the ideators wrote, handed or not.
      const before = await openingOf((await handIdeasTo("historian", "PROBE: which precedents fit these ideas?")).id);
      expect(before).toContain("Divergent thinking");
      expect(before).not.toContain("CANARY-");
      // Nor does it by reading the board with its tool.
      const readBoardAsHistorian = async () => {
        const rows = await context.database.db.select().from(agents).where(eq(agents.roomId, roomId));
        const historian = rows.find((agent) => agent.persona === "historian")!;
        const tools = createBoardTools(
          activeRun(context.database, { run: runRow({ roomId, agentId: historian.id }), agent: historian, team: rows }),
        );
        return JSON.stringify(await tools.read_shared_context.execute!({ limit: 100 }, { toolCallId: "probe", messages: [], context: {} }));
      };
      expect(await readBoardAsHistorian()).not.toContain("CANARY-");
      release();
      await eventually(
        async () => expect((await eventTypes(roomId)).some((row) => row.type === "brainstorm.ideas_released")).toBe(true),
        30_000,
      );
      // Released, the ideas are everyone's.
      const after = await openingOf((await handIdeasTo("historian", "PROBE: and now?")).id);
      expect(after).toContain("CANARY-cross-pollinator");
      expect(await readBoardAsHistorian()).toContain("CANARY-cross-pollinator");
      await settled(roomId, ["awaiting_gate"]);
    } finally {
      release();
      await provider.stop();
    }
  });

  it("runs a short stage once more with its shortfall named, then goes on marked short", async () => {
    const { roomId } = await brainstormRoom();
    let asked = 0;
    const provider = await standIn(["contrarian"], roomId, (persona) => {
      if (persona !== "contrarian") return null;
      asked += 1;
      return ideas(`Few${asked}`, asked === 1 ? 3 : 1);
    });
    try {
      await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
      await eventually(async () => expect((await stateOf(roomId)).stages.divergent.status).toBe("short"), 30_000);
      const contrarianRuns = (await stageRuns(roomId, "divergent")).filter((run) => run.prompt.includes("persona: contrarian"));
      expect(contrarianRuns).toHaveLength(2);
      expect(contrarianRuns[1]!.prompt).toContain(
        "You are asked again because the stage fell short: you have 3 ideas of at least 5. Submit what is missing.",
      );
      expect(contrarianRuns[1]!.prompt).not.toMatch(/Contrarian has|ideas in all/);
      const divergent = (await stateOf(roomId)).stages.divergent;
      expect(divergent).toMatchObject({ status: "short", rerun: true });
      expect(divergent.shortfall).toMatch(/^Contrarian has 4 ideas of at least 5\.$/);
      // The other ideators were not asked again.
      expect((await stageRuns(roomId, "divergent")).filter((run) => (run.purpose as { rerun: boolean }).rerun)).toHaveLength(1);
      await settled(roomId, ["awaiting_gate"]);
    } finally {
      await provider.stop();
    }
  });

  it("asks the framers again in their order when both fall short: the Questioner after the Cartographer has added its part", async () => {
    const { roomId, team } = await brainstormRoom();
    const agentOf = (persona: string) => team.find((agent) => agent.persona === persona)!;
    const framing = (input: Record<string, unknown>) => ({ toolCall: { name: "submit_framing", arguments: input } });
    const provider = await standIn(["cartographer", "questioner"], roomId, (persona, request) => {
      const again = JSON.stringify(request.messages).includes("asked again");
      if (persona === "cartographer") {
        return again
          ? framing({ scopeIn: ["Every step of onboarding"], scopeOut: ["Hiring"], constraints: ["MAPPED-AGAIN: no new budget"] })
          : framing({ scopeIn: ["Every step of onboarding"] });
      }
      if (persona === "questioner") {
        return again
          ? framing({ keyQuestions: ["Where does the time go?", "What comes first?", "Who changes what?"] })
          : framing({ successCriteria: ["Faster", "Happier", "Cheaper"] });
      }
      return null;
    });
    try {
      await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
      await eventually(async () => expect((await stateOf(roomId)).stages.framing.status).toBe("done"), 30_000);
      const reruns = (await stageRuns(roomId, "framing")).filter((run) => (run.purpose as { rerun: boolean }).rerun);
      expect(reruns.map((run) => run.agentId)).toEqual([agentOf("cartographer").id, agentOf("questioner").id]);
      const [mapped, questioned] = reruns;
      // Queued once the Cartographer's second run had ended, by it, and shown what that run added.
      expect(questioned!.parentRunId).toBe(mapped!.id);
      expect(questioned!.createdAt.getTime()).toBeGreaterThanOrEqual(mapped!.finishedAt!.getTime());
      const system = (request: ChatRequest) => String(request.messages.find((message) => message.role === "system")?.content ?? "");
      const asked = provider.server.requests.find(
        (request) => system(request).includes("(persona: questioner)") && JSON.stringify(request.messages).includes("asked again"),
      );
      expect(JSON.stringify(asked!.messages)).toContain("MAPPED-AGAIN");
      expect((await stateOf(roomId)).stages.framing).toMatchObject({ status: "done", rerun: true });
      await settled(roomId, ["awaiting_gate"]);
    } finally {
      await provider.stop();
    }
  });

  it("goes back to divergent thinking once when convergent thinking finds fewer than three candidates, each ideator within 15 ideas in all", async () => {
    const { roomId, team } = await brainstormRoom();
    const agentOf = (persona: string) => team.find((agent) => agent.persona === persona)!;
    let synthesized = 0;
    const provider = await standIn(["synthesizer", "connector", "wild-ideator", "cross-pollinator"], roomId, (persona, request) => {
      const text = JSON.stringify(request.messages);
      const again = text.includes("This stage runs again");
      // The Wild Ideator gives its most at once; the Cross-Pollinator gives 12, then tries 6 more.
      if (persona === "wild-ideator" && text.includes("Brainstorm stage 1")) return ideas(`Wild${again ? " again" : ""}`, again ? 1 : 15);
      if (persona === "cross-pollinator" && text.includes("Brainstorm stage 1"))
        return ideas(`Pollen${again ? " again" : ""}`, again ? 6 : 12);
      const ideaIds = [...text.matchAll(/- ([A-Z]+-\d+) \[/g)].map((match) => match[1]!);
      if (persona === "synthesizer" && !text.includes("asked again")) {
        synthesized += 1;
        const count = synthesized === 1 ? 2 : 5;
        return {
          toolCall: {
            name: "submit_candidates",
            arguments: {
              candidates: Array.from({ length: count }, (_, index) => ({
                title: `Candidate ${synthesized}.${index + 1}`,
                cluster: "Cluster",
                summary: "A candidate from the ideas.",
                sourceIdeas: [ideaIds[index] ?? ideaIds[0]!],
                combination: false,
              })),
            },
          },
        };
      }
      return null;
    });
    try {
      await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
      const atGate = await settled(roomId, ["awaiting_gate"]);
      expect(atGate.returnedToDivergent).toBe(1);
      expect(atGate.stages.divergent.passes).toBe(2);
      expect(atGate.stages.convergent).toMatchObject({ passes: 2, status: "done", count: 5 });
      expect(atGate.stages.precedents.passes).toBe(1);
      // Only the ideators with room for more are asked again, and told how many more they may add.
      const secondPass = (await stageRuns(roomId, "divergent")).filter((run) => (run.purpose as { pass: number }).pass === 2);
      expect(secondPass.map((run) => run.agentId).sort()).toEqual(
        ["cross-pollinator", "first-principles-thinker", "contrarian"].map((persona) => agentOf(persona).id).sort(),
      );
      for (const run of secondPass) expect(run.prompt).toMatch(/This stage runs again: Only 2 candidates: back to divergent thinking/);
      expect(secondPass.find((run) => run.agentId === agentOf("cross-pollinator").id)!.prompt).toContain("at most 3 more.");
      // Six more from the Cross-Pollinator would pass 15 in all: refused, with what it may still add.
      const refusal = provider.server.requests.find((request) =>
        request.messages.some((message) => message.role === "tool" && JSON.stringify(message.content).includes("you have 12")),
      );
      expect(refusal).toBeDefined();
      expect(JSON.stringify(refusal!.messages)).toContain("At most 15 ideas from you in all; you have 12. Submit your best 3 or fewer.");
      // The stage counts the ideas of both passes, never more than 60, and the second synthesis reads them all.
      const work = await readWork(context.database.db, atGate.id);
      const ideasOf = (persona: string) => work.ideas.filter((idea) => idea.agentId === agentOf(persona).id);
      expect(ideasOf("wild-ideator")).toHaveLength(15);
      expect(ideasOf("cross-pollinator")).toHaveLength(12);
      expect(new Set(work.ideas.map((idea) => idea.pass))).toEqual(new Set([1, 2]));
      expect(atGate.stages.divergent.count).toBe(work.ideas.length);
      expect(work.ideas.length).toBeLessThanOrEqual(60);
      const syntheses = provider.server.requests.filter(
        (request) =>
          JSON.stringify(request.messages).includes("(persona: synthesizer)") &&
          !request.messages.some((message) => message.role === "tool"),
      );
      const second = JSON.stringify(syntheses.at(-1)!.messages);
      for (const idea of work.ideas) expect(second).toContain(`- ${idea.id} [`);
    } finally {
      await provider.stop();
    }
  });

  it("goes back to divergent thinking only once, however few candidates the second convergent pass finds", async () => {
    const { roomId } = await brainstormRoom();
    // The Connector adds nothing; the Synthesizer finds two candidates every time.
    const provider = await standIn(["synthesizer", "connector"], roomId, (persona, request) => {
      const text = JSON.stringify(request.messages);
      if (persona !== "synthesizer" || text.includes("asked again")) return null;
      const ideaIds = [...text.matchAll(/- ([A-Z]+-\d+) \[/g)].map((match) => match[1]!);
      const candidate = (index: number) => ({
        title: `Candidate ${index}`,
        cluster: "Cluster",
        summary: "A candidate.",
        sourceIdeas: [ideaIds[index]!],
        combination: false,
      });
      return { toolCall: { name: "submit_candidates", arguments: { candidates: [candidate(0), candidate(1)] } } };
    });
    try {
      await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
      const atGate = await settled(roomId, ["awaiting_gate"]);
      expect(atGate.returnedToDivergent).toBe(1);
      expect(atGate.stages.divergent.passes).toBe(2);
      expect(atGate.stages.convergent).toMatchObject({ passes: 2, status: "short" });
    } finally {
      await provider.stop();
    }
  });

  it("counts on convergent thinking's chip, and towards its 8, only the candidates of its second pass after the return to divergent thinking", async () => {
    const { roomId } = await brainstormRoom();
    let synthesized = 0;
    // Two candidates at first, which sends the process back; eight at once in the second pass.
    const provider = await standIn(["synthesizer", "connector"], roomId, (persona, request) => {
      const text = JSON.stringify(request.messages);
      if (persona !== "synthesizer" || !text.includes("Brainstorm stage 3")) return null;
      synthesized += 1;
      const ideaIds = [...text.matchAll(/- ([A-Z]+-\d+) \[/g)].map((match) => match[1]!);
      const count = synthesized === 1 ? 2 : 8;
      const candidates = Array.from({ length: count }, (_, index) => ({
        title: `Pass ${synthesized} candidate ${index + 1}`,
        cluster: "Cluster",
        summary: "A candidate from the ideas.",
        sourceIdeas: [ideaIds[index] ?? ideaIds[0]!],
        combination: false,
      }));
      return { toolCall: { name: "submit_candidates", arguments: { candidates } } };
    });
    try {
      await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
      const atGate = await settled(roomId, ["awaiting_gate"]);
      expect(atGate.returnedToDivergent).toBe(1);
      expect(atGate.stages.convergent).toMatchObject({ passes: 2, status: "done", rerun: false, count: 8 });
      // Not refused as if the first pass's two were still among the eight.
      const refused = provider.server.requests.filter((request) =>
        request.messages.some((message) => message.role === "tool" && JSON.stringify(message.content).includes("At most 8 candidates")),
      );
      expect(refused).toEqual([]);
      const chips = (await eventTypes(roomId))
        .filter((row) => row.type === "brainstorm.submitted" && (row.payload as { stage: string }).stage === "convergent")
        .map((row) => (row.payload as { brainstorm: BrainstormDto }).brainstorm.stages.convergent.count);
      expect(chips).toEqual([2, 8]);
      // The second pass starts with no candidates of its own, and its ids follow the first pass's.
      const syntheses = provider.server.requests.filter(
        (request) =>
          String(request.messages.find((message) => message.role === "system")?.content).includes("(persona: synthesizer)") &&
          !request.messages.some((message) => message.role === "tool"),
      );
      expect(syntheses).toHaveLength(2);
      expect(JSON.stringify(syntheses[1]!.messages)).not.toContain("Candidates so far");
      const work = await readWork(context.database.db, atGate.id);
      expect(work.candidates.map((candidate) => [candidate.id, candidate.title])).toEqual(
        Array.from({ length: 8 }, (_, index) => [`C${index + 3}`, `Pass 2 candidate ${index + 1}`]),
      );
    } finally {
      await provider.stop();
    }
  });

  it("counts on prioritization's chip the candidates scored so far in the pass, over all the Strategist's calls", async () => {
    const { roomId } = await brainstormRoom();
    const scores = (ids: string[]) => ({
      toolCall: {
        name: "submit_ranking",
        arguments: {
          scores: ids.map((candidateId, index) => ({
            candidateId,
            impact: 8 - index,
            feasibility: 7,
            cost: 6,
            speed: 6,
            risk: 6,
            rationale: "Scored for the test.",
          })),
        },
      },
    });
    // The Strategist scores two candidates, and the rest once asked again for what it left out.
    const provider = await standIn(["strategist"], roomId, (_persona, request) => {
      const text = JSON.stringify(request.messages);
      if (!text.includes("Brainstorm stage 6")) return null;
      const missing = text.match(/Not scored: ([^.]+)\./)?.[1];
      return missing
        ? scores(missing.split(", "))
        : scores([...new Set([...text.matchAll(/- (C\d+) \[/g)].map((match) => match[1]!))].slice(0, 2));
    });
    try {
      await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
      const atGate = await settled(roomId, ["awaiting_gate"]);
      const inPlay = atGate.stages.prioritization.total!;
      expect(inPlay).toBeGreaterThan(2);
      const chips = (await eventTypes(roomId))
        .filter((row) => row.type === "brainstorm.submitted" && (row.payload as { stage: string }).stage === "prioritization")
        .map((row) => (row.payload as { brainstorm: BrainstormDto }).brainstorm.stages.prioritization);
      // The second call scored the rest: the chip says all of them, not that call's share.
      expect(chips.map((chip) => [chip.count, chip.total])).toEqual([
        [2, inPlay],
        [inPlay, inPlay],
      ]);
      expect(atGate.stages.prioritization).toMatchObject({ status: "done", rerun: true, count: inPlay });
    } finally {
      await provider.stop();
    }
  });

  it("counts on fact checking's chip after a deepen only the checks of that pass, not what the checkers said before", async () => {
    const { roomId } = await brainstormRoom();
    const cookie = await seatIn(roomId);
    // The fact checkers check every candidate at first, and say nothing new when asked to go deeper.
    const provider = await standIn(["skeptic", "feasibility-analyst"], roomId, (_persona, request) => {
      const text = JSON.stringify(request.messages);
      if (!text.includes("Brainstorm stage 4") || text.includes("Go deeper on candidate")) return null;
      const ids = [...new Set([...text.matchAll(/- (C\d+) \[/g)].map((match) => match[1]!))];
      return {
        toolCall: {
          name: "submit_fact_checks",
          arguments: {
            checks: ids.map((candidateId) => ({
              candidateId,
              rating: "pass",
              assumptions: [{ text: "People have the time.", rating: "solid" }],
              note: "Holds up.",
            })),
          },
        },
      };
    });
    try {
      await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
      const gate = await settled(roomId, ["awaiting_gate"]);
      expect(gate.stages.fact_check).toMatchObject({ status: "done", passes: 1 });
      const deepenedId = ((await call(latestRoute, { url: "/x", method: "GET", params: { roomId } })).body.brainstorm as BrainstormDto)
        .ranking[0]!.id;
      expect((await decide(roomId, gate.id, { action: "deepen", round: gate.gateRound, candidateId: deepenedId }, cookie)).status).toBe(
        200,
      );
      const again = await settled(roomId, ["awaiting_gate"]);
      // Checked in the first pass, the candidate is not checked in this one: none of one, asked again, short.
      expect(again.stages.fact_check).toMatchObject({ passes: 2, status: "short", rerun: true, count: 0, total: 1 });
      expect(again.stages.fact_check.shortfall).toMatch(new RegExp(`has not covered ${deepenedId}; .* has not covered ${deepenedId}\\.`));
      const secondPass = (await stageRuns(roomId, "fact_check")).filter((run) => (run.purpose as { pass: number }).pass === 2);
      expect(secondPass.filter((run) => (run.purpose as { rerun: boolean }).rerun)).toHaveLength(2);
      const shown = (await call(latestRoute, { url: "/x", method: "GET", params: { roomId } })).body.brainstorm as BrainstormDto;
      expect(shown.stages.fact_check).toMatchObject({ count: 0, total: 1 });
      // What they said of it before still stands: it is still ranked, as checked.
      expect(shown.ranking.find((candidate) => candidate.id === deepenedId)?.standing).toMatch(/^checked/);
    } finally {
      await provider.stop();
    }
  });

  it("links a candidate to the precedents it draws on, and refuses one naming a precedent that does not exist, storing nothing", async () => {
    const { roomId } = await brainstormRoom();
    let calls = 0;
    const provider = await standIn(["synthesizer"], roomId, (_persona, request) => {
      const text = JSON.stringify(request.messages);
      if (!text.includes("Brainstorm stage 3")) return null;
      calls += 1;
      const [ideaId] = [...text.matchAll(/- ([A-Z]+-\d+) \[/g)].map((match) => match[1]!);
      const [precedentId] = [...text.matchAll(/- (P\d+) /g)].map((match) => match[1]!);
      const candidate = (index: number, precedents: string[]) => ({
        title: `Drawn ${calls}.${index}`,
        cluster: "Cluster",
        summary: "A candidate.",
        sourceIdeas: [ideaId!],
        precedents,
        combination: false,
      });
      const candidates =
        calls === 1 ? [candidate(1, ["P99"])] : Array.from({ length: 5 }, (_, index) => candidate(index + 1, [precedentId!]));
      return { toolCall: { name: "submit_candidates", arguments: { candidates } } };
    });
    try {
      await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
      const atGate = await settled(roomId, ["awaiting_gate"]);
      const refused = provider.server.requests.find((request) =>
        request.messages.some((message) => message.role === "tool" && JSON.stringify(message.content).includes("P99")),
      );
      expect(JSON.stringify(refused!.messages)).toMatch(
        /No precedent has the id P99; use the ids in the Precedents list \(e\.g\. P1, P2, P3\)/,
      );
      const nodes = await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId));
      expect(nodes.filter((node) => node.text.includes("Drawn 1."))).toEqual([]);
      const work = await readWork(context.database.db, atGate.id);
      expect(work.candidates.filter((candidate) => candidate.title.startsWith("Drawn 1."))).toEqual([]);
      // The accepted ones are each linked from the precedent they draw on.
      const drawn = work.candidates.filter((candidate) => candidate.title.startsWith("Drawn"));
      expect(drawn).toHaveLength(5);
      const precedent = work.precedents.find((each) => each.id === drawn[0]!.precedents![0])!;
      const edges = await context.database.db
        .select()
        .from(canvasEdges)
        .where(and(eq(canvasEdges.roomId, roomId), eq(canvasEdges.sourceId, precedent.nodeId!)));
      const drawnNodes = new Set(drawn.map((candidate) => candidate.nodeId));
      expect(
        edges
          .filter((edge) => drawnNodes.has(edge.targetId))
          .map((edge) => [edge.targetId, edge.label])
          .sort(),
      ).toEqual(drawn.map((candidate) => [candidate.nodeId, "informs"]).sort());
    } finally {
      await provider.stop();
    }
  });

  it("does not go back to divergent thinking when every ideator has given its 15 ideas already", async () => {
    const ideators = ["wild-ideator", "cross-pollinator", "first-principles-thinker", "contrarian"];
    const { roomId } = await brainstormRoom();
    const provider = await standIn([...ideators, "synthesizer", "connector"], roomId, (persona, request) => {
      const text = JSON.stringify(request.messages);
      if (ideators.includes(persona) && text.includes("Brainstorm stage 1")) return ideas(persona, 15);
      const [ideaId] = [...text.matchAll(/- ([A-Z]+-\d+) \[/g)].map((match) => match[1]!);
      if (persona === "synthesizer" && text.includes("Brainstorm stage 3")) {
        return {
          toolCall: {
            name: "submit_candidates",
            arguments: {
              candidates: [{ title: "Only one", cluster: "Cluster", summary: "A candidate.", sourceIdeas: [ideaId!], combination: false }],
            },
          },
        };
      }
      return null;
    });
    try {
      await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
      const atGate = await settled(roomId, ["awaiting_gate"]);
      expect(atGate.stages.divergent).toMatchObject({ passes: 1, status: "done", count: 60 });
      expect(atGate.returnedToDivergent).toBe(0);
      expect(atGate.stages.convergent).toMatchObject({ passes: 1, status: "short", count: 1 });
    } finally {
      await provider.stop();
    }
  });

  it("gives the Synthesizer all 60 ideas whole, at their longest, within the room's prompt budget", async () => {
    const ideators = ["wild-ideator", "cross-pollinator", "first-principles-thinker", "contrarian"];
    const { roomId } = await brainstormRoom();
    // Each ideator's 15, every title and one-liner as long as the tool takes.
    const longest = (persona: string) => ({
      toolCall: {
        name: "submit_ideas",
        arguments: {
          ideas: Array.from({ length: 15 }, (_, index) => ({
            title: `${`${persona} ${index + 1}:`.padEnd(79, " onboarding")}!`,
            oneLiner: `${persona} ${index + 1} says:`.padEnd(239, " new engineers pair on a real change") + ".",
          })),
        },
      },
    });
    let synthesis: ChatRequest | null = null;
    const provider = await standIn([...ideators, "synthesizer"], roomId, (persona, request) => {
      const text = JSON.stringify(request.messages);
      if (ideators.includes(persona) && text.includes("Brainstorm stage 1")) return longest(persona);
      if (persona === "synthesizer" && text.includes("Brainstorm stage 3")) {
        synthesis ??= request;
        return { text: "Read them all." };
      }
      return null;
    });
    try {
      const started = await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
      await eventually(() => expect(synthesis).not.toBeNull(), 30_000);
      const work = await readWork(context.database.db, started.id);
      expect(work.ideas).toHaveLength(60);
      expect(work.ideas.every((idea) => idea.title.length === 80 && idea.oneLiner.length === 240)).toBe(true);
      const opening = provider.server.userText(provider.server.requests.indexOf(synthesis!));
      // Every idea, each line whole: nothing the Synthesizer must act on is cut or left out.
      expect(opening).toContain("## Ideas (60 from divergent thinking)");
      for (const idea of work.ideas) expect(opening).toContain(ideaLine(idea));
      // Everything besides the task keeps to the Brainstorm room's budget of 6,000 tokens.
      const afterTask = opening.indexOf("\n\n## ", opening.indexOf("## Why you were started"));
      expect(estimateTokens(opening.slice(afterTask))).toBeLessThanOrEqual(6000);
      await cancelBrainstorm(context.database.db, roomId, started.id, ADA);
      await settled(roomId, ["cancelled"]);
    } finally {
      await provider.stop();
    }
  });

  it("skips prioritization when pushback leaves no candidate in play, and the gate opens on an empty shortlist nobody can approve", async () => {
    const { roomId } = await brainstormRoom();
    const challengers = ["devils-advocate", "pragmatist"];
    const provider = await standIn(challengers, roomId, (persona, request) => {
      const user = request.messages
        .filter((message) => message.role === "user")
        .map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content)))
        .join("\n");
      if (!user.includes("Brainstorm stage 5")) return null;
      const candidates = [...new Set([...user.matchAll(/^- (C\d+) \[/gm)].map((match) => match[1]!))];
      return {
        toolCall: {
          name: "submit_pushback",
          arguments: {
            verdicts: candidates.map((candidateId) => ({
              candidateId,
              verdict: "killed",
              argument: `${persona} sees no way ${candidateId} works.`,
            })),
          },
        },
      };
    });
    try {
      const started = await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
      const atGate = await settled(roomId, ["awaiting_gate"]);
      expect(atGate.stages.pushback.status).toBe("done");
      expect(atGate.stages.prioritization).toMatchObject({
        status: "skipped",
        passes: 1,
        count: 0,
        total: 0,
        shortfall: "No candidate is left to work on.",
      });
      expect(await stageRuns(roomId, "prioritization")).toEqual([]);
      const stageEvents = (await eventTypes(roomId))
        .filter((row) => row.type === "brainstorm.stage")
        .map((row) => row.payload as { stage: string; status: string });
      expect(stageEvents.filter((event) => event.stage === "prioritization").map((event) => event.status)).toEqual(["skipped"]);
      const shown = (await call(latestRoute, { url: "/x", method: "GET", params: { roomId } })).body.brainstorm as BrainstormDto;
      expect(shown.ranking).toEqual([]);
      const approved = decideGate(context.database.db, roomId, started.id, { action: "approve", round: atGate.gateRound }, ADA);
      await expect(approved).rejects.toThrow("Nothing is left on the shortlist to approve: redirect the ranking instead.");
    } finally {
      await provider.stop();
    }
  });

  it("never times out the gate: however long nobody decides, it waits", async () => {
    const database = await createTestDatabase();
    const worker = await startTestWorker(database);
    try {
      const minute = Object.fromEntries(
        ["framing", "divergent", "precedents", "convergent", "fact_check", "pushback", "prioritization", "review", "presentation"].map(
          (stage) => [stage, 1],
        ),
      );
      const { roomId } = await brainstormRoom(database, { brainstorm_stage_minutes: minute });
      await startBrainstorm(database.db, roomId, PROBLEM, ADA);
      const atGate = await settled(roomId, ["awaiting_gate"], database);
      const logged = async () => (await database.db.select({ id: events.id }).from(events).where(eq(events.roomId, roomId))).length;
      const before = await logged();
      // Ten years on, with every stage limited to a minute: nothing is stopped, nothing written.
      expect(await sweepStageLimits(database.db, new Date(Date.now() + 10 * 365 * 24 * 3600_000))).toBe(0);
      expect(await stateOf(roomId, database)).toEqual(atGate);
      expect(atGate.stages.gate).toMatchObject({ status: "awaiting", timedOut: false });
      expect(await logged()).toBe(before);
      // Every run of it has ended, but it waits for a person: its workflow is under way, with no end.
      const waiting = await readWorkflow(database.db, roomId, atGate.correlationId);
      expect(waiting.runList.every((run) => run.status === "succeeded")).toBe(true);
      expect(waiting).toMatchObject({ status: "active", endedAt: null, durationMs: null });
      expect((await listWorkflows(database.db, roomId)).workflows).toEqual([
        expect.objectContaining({ correlationId: atGate.correlationId, status: "active", endedAt: null }),
      ]);
      // Stopped by a person, it ends then: a stop is an outcome, not a failure.
      await cancelBrainstorm(database.db, roomId, atGate.id, ADA);
      const stopped = await stateOf(roomId, database);
      expect(await readWorkflow(database.db, roomId, atGate.correlationId)).toMatchObject({
        status: "complete",
        endedAt: stopped.finishedAt!.toISOString(),
      });
    } finally {
      await worker.stop();
      await database.destroy();
    }
  });

  it("ends a run its stage's time limit catches mid-stream, and the brainstorm goes on without it", async () => {
    const database = await createTestDatabase();
    // The Cartographer starts to answer, then its provider goes quiet.
    const stalls = new MockLanguageModelV4({
      doStream: async ({ abortSignal }) => ({
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            controller.enqueue({ type: "text-start", id: "t" });
            controller.enqueue({ type: "text-delta", id: "t", delta: "Mapping the scope of onboarding" });
            abortSignal?.addEventListener("abort", () => controller.error(abortSignal.reason), { once: true });
          },
        }),
      }),
    });
    const worker = await startTestWorker(database, { resolveModel: mockResolver({ stalls }) });
    try {
      const { roomId } = await brainstormRoom(database, { brainstorm_stage_minutes: { framing: 1 } });
      const team = await database.db.select().from(agents).where(eq(agents.roomId, roomId));
      const cartographer = team.find((agent) => agent.persona === "cartographer")!;
      await setAgentModel(database, cartographer.id, "mock:stalls");
      await startBrainstorm(database.db, roomId, PROBLEM, ADA);
      const streaming = await eventually(async () => {
        const [run] = await database.db
          .select()
          .from(runs)
          .where(and(eq(runs.agentId, cartographer.id), eq(runs.status, "running")));
        expect(run?.streamingText).toContain("Mapping the scope");
        return run!;
      }, 30_000);
      expect(await sweepStageLimits(database.db, new Date(Date.now() + 61_000))).toBe(1);
      const ended = await eventually(async () => {
        const [run] = await database.db.select().from(runs).where(eq(runs.id, streaming.id));
        expect(run!.status).toBe("cancelled");
        return run!;
      }, 30_000);
      expect(ended.finishedAt).not.toBeNull();
      const row = await eventually(async () => {
        const state = await stateOf(roomId, database);
        expect(state.stages.divergent.passes).toBe(1);
        return state;
      }, 30_000);
      expect(row.stages.framing).toMatchObject({ status: "short", timedOut: true, passes: 1 });
      // The stage ended there: the Questioner, who would have followed, was not started, nor was the stage run again.
      const framingRuns = await database.db
        .select()
        .from(runs)
        .where(and(eq(runs.roomId, roomId), sql`${runs.purpose}->>'stage' = 'framing'`));
      expect(framingRuns.map((run) => run.id)).toEqual([streaming.id]);
      expect(row.stages.precedents.passes).toBe(1);
      await cancelBrainstorm(database.db, roomId, row.id, ADA);
    } finally {
      await worker.stop();
      await database.destroy();
    }
  });

  it("opens no dialogue from what a stage run says to a teammate: the brainstorm, not its agents, decides who works next", async () => {
    const framing = { scopeIn: ["The first month of a new engineer"], scopeOut: ["Hiring"], constraints: ["No new headcount"] };
    const words = ["Questioner, which of these boundaries matters most to you?", "Questioner: weigh the first week above the rest."];
    const addresses = scriptedSteps([toolStep([{ id: "f1", name: "submit_framing", input: framing }], words[0]), textStep(words[1]!)]);
    const worker = await startTestWorker(context.database, { resolveModel: mockResolver({ addresses }) });
    try {
      const { roomId, team } = await brainstormRoom();
      const cartographer = team.find((agent) => agent.persona === "cartographer")!;
      await setAgentModel(context.database, cartographer.id, "mock:addresses");
      const started = await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
      await eventually(async () => expect((await stateOf(roomId)).stages.framing.status).toBe("done"), 30_000);
      const [run] = (await stageRuns(roomId, "framing")).filter((row) => row.agentId === cartographer.id);
      expect(run).toMatchObject({ status: "succeeded" });
      // Its words address the Questioner, as a run outside the brainstorm's would.
      const questioner = team.find((agent) => agent.persona === "questioner")!;
      for (const said of words)
        expect(detectAddressee(said, { speaker: cartographer, team, concernPhrases: [] })?.addressee.id).toBe(questioner.id);
      expect(await context.database.db.select().from(dialogues).where(eq(dialogues.roomId, roomId))).toEqual([]);
      await cancelBrainstorm(context.database.db, roomId, started.id, ADA);
    } finally {
      await worker.stop();
    }
  });

  it("takes over a stage run whose worker died once its lease lapses, and goes on in the same stage from the step it saved", async () => {
    const database = await createTestDatabase();
    const bus = new RoomBus(database);
    await bus.start();
    // The Cartographer submits the scope, then its worker dies while it writes its last words.
    const control = { dying: true };
    const framing = { scopeIn: ["The first month of a new engineer"], scopeOut: ["Hiring"], constraints: ["No new headcount"] };
    const dies = new MockLanguageModelV4({
      doStream: async (options) => {
        const done = options.prompt.filter((message) => message.role === "assistant").length;
        if (control.dying && done === 1) {
          await new Promise((_, reject) =>
            options.abortSignal?.addEventListener("abort", () => reject(options.abortSignal!.reason), { once: true }),
          );
        }
        const step = done === 0 ? toolStep([{ id: "f1", name: "submit_framing", input: framing }]) : textStep("The scope is mapped.");
        return { stream: convertArrayToReadableStream(step) };
      },
    });
    const models = mockResolver({ dies });
    let survivor: Awaited<ReturnType<typeof startTestWorker>> | null = null;
    try {
      const { roomId } = await brainstormRoom(database);
      const team = await database.db.select().from(agents).where(eq(agents.roomId, roomId));
      const cartographer = team.find((agent) => agent.persona === "cartographer")!;
      await setAgentModel(database, cartographer.id, "mock:dies");
      await startBrainstorm(database.db, roomId, PROBLEM, ADA);
      const claimed = await claimNextRun(database.db, { owner: "worker-that-dies", leaseMs: 400 });
      expect(claimed).toMatchObject({ agentId: cartographer.id, purpose: { kind: "brainstorm", stage: "framing" } });
      const controller = new AbortController();
      let reason: StopReason | null = null;
      const executing = executeRun({ database, bus, resolveModel: models, typingFlushMs: 10 }, claimed!, {
        owner: "worker-that-dies",
        signal: controller.signal,
        stopReason: () => reason,
      });
      await eventually(
        async () => expect((await database.db.select().from(runs).where(eq(runs.id, claimed!.id)))[0]!.steps).toBe(1),
        30_000,
      );
      reason = "lease_lost";
      controller.abort(new Error(reason));
      expect(await executing).toBeNull();
      control.dying = false;
      expect((await database.db.select().from(runs).where(eq(runs.id, claimed!.id)))[0]!.status).toBe("running");

      survivor = await startTestWorker(database, { resolveModel: models });
      const row = await eventually(async () => {
        const state = await stateOf(roomId, database);
        expect(state.stages.framing.status).toBe("done");
        return state;
      }, 30_000);
      // The same run, taken again, finished the stage's first part; the stage was not entered again.
      const [taken] = await database.db.select().from(runs).where(eq(runs.id, claimed!.id));
      expect(taken).toMatchObject({ status: "succeeded", attempts: 2 });
      expect(row.stages.framing.passes).toBe(1);
      const cartographerRuns = await database.db
        .select()
        .from(runs)
        .where(and(eq(runs.agentId, cartographer.id), sql`${runs.purpose}->>'stage' = 'framing'`));
      expect(cartographerRuns.map((run) => run.id)).toEqual([claimed!.id]);
      // Its submission, made before the worker died, counts once.
      const work = await readWork(database.db, row.id);
      expect(work.framing.scopeIn).toEqual(framing.scopeIn);
      expect(work.framing.constraints).toEqual(framing.constraints);
      // The Questioner followed, and then the next stages.
      await eventually(async () => expect((await stateOf(roomId, database)).stages.divergent.passes).toBe(1), 30_000);
      await cancelBrainstorm(database.db, roomId, row.id, ADA);
    } finally {
      await survivor?.stop();
      await bus.stop();
      await database.destroy();
    }
  });

  it("can be stopped wherever it is, by a participant, so the room can brainstorm again", async () => {
    const worker = await startTestWorker(context.database);
    try {
      const { roomId } = await brainstormRoom();
      const cookie = await seatIn(roomId);
      await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
      const gate = await settled(roomId, ["awaiting_gate"]);
      const stop = (withCookie?: string) =>
        call(cancelRoute, { url: "/x", method: "POST", params: { roomId, brainstormId: gate.id }, cookie: withCookie });
      expect((await stop()).status).toBe(403);
      expect((await stateOf(roomId)).status).toBe("awaiting_gate");
      const stopped = await stop(cookie);
      expect(stopped.status).toBe(200);
      expect((stopped.body.brainstorm as BrainstormDto).status).toBe("cancelled");
      expect((await stop(cookie)).status).toBe(409);
      expect((await decide(roomId, gate.id, { action: "approve", round: gate.gateRound }, cookie)).status).toBe(409);
      const log = await eventTypes(roomId);
      expect(log.at(-1)).toMatchObject({ type: "brainstorm.completed", payload: { outcome: "cancelled" } });
      // A new one may start, and its lanes are drawn below the first one's.
      await startBrainstorm(context.database.db, roomId, "Reduce food waste in our office cafeteria", ADA);
      const rows = await context.database.db
        .select()
        .from(brainstorms)
        .where(eq(brainstorms.roomId, roomId))
        .orderBy(asc(brainstorms.createdAt));
      expect(rows).toHaveLength(2);
      const nodes = await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId));
      const firstBottom = Math.max(...nodes.filter((node) => node.y < rows[1]!.laneTop - 280).map((node) => node.y));
      expect(rows[0]!.laneTop).toBe(0);
      expect(rows[1]!.laneTop).toBeGreaterThan(firstBottom);
      await settled(roomId, ["awaiting_gate"]);
      const headings = (await context.database.db.select().from(canvasNodes).where(eq(canvasNodes.roomId, roomId))).filter(
        (node) => node.kind === "stage" && node.y > 0,
      );
      expect(headings.length).toBeGreaterThanOrEqual(7);
      for (const heading of headings) expect(heading.y).toBe(rows[1]!.laneTop - 280);
    } finally {
      await worker.stop();
    }
  });

  it("keeps the people's answers from an agent working alone: another ideator's question could carry its ideas", async () => {
    const { roomId } = await brainstormRoom(context.database, { broadcast: "human" });
    const roster = await context.database.db.select().from(agents).where(eq(agents.roomId, roomId));
    const pollinator = roster.find((agent) => agent.persona === "cross-pollinator")!;
    const wild = roster.find((agent) => agent.persona === "wild-ideator")!;
    const [asked] = await context.database.db
      .insert(broadcasts)
      .values({
        id: randomUUID(),
        roomId,
        agentId: pollinator.id,
        agentName: pollinator.name,
        question: "CANARY-cross-pollinator: would a buddy rota work?",
        correlationId: "workflow-asked",
        mode: "human",
        status: "complete",
        deadlineAt: null,
      })
      .returning();
    await context.database.db.insert(broadcastResponses).values({
      id: randomUUID(),
      broadcastId: asked!.id,
      roomId,
      responderId: ADA.id,
      responderName: ADA.name,
      isHuman: true,
      content: "Yes, weekly.",
      costUsd: 0,
    });
    const run = runRow({ roomId, agentId: wild.id });
    const sectionsFor = async (isolated: boolean) =>
      JSON.stringify(
        (
          await loadPromptContext(context.database.db, {
            run,
            agent: wild,
            team: roster,
            isolated,
            settings: parseRoomSettings({ broadcast: "human" }),
            now: new Date(),
            toolNames: [],
            notes: { roomId, agentId: wild.id, agentName: wild.name, runId: run.id, step: 0 },
          })
        ).extraSections,
      );
    expect(await sectionsFor(true)).not.toContain("CANARY-");
    // The check can fail: not working alone, the same run reads the question and its answer.
    expect(await sectionsFor(false)).toContain("CANARY-cross-pollinator: would a buddy rota work?");
  });

  it("lets nobody ask the ideators anything while they work alone", async () => {
    const ideators = ["wild-ideator", "cross-pollinator", "first-principles-thinker", "contrarian"];
    // Room enough for the narrator while the four ideators are held at work.
    const { roomId, team } = await brainstormRoom(context.database, { broadcast: "agents", broadcast_timeout: 5, max_concurrent_runs: 8 });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const provider = await standIn([...ideators, "narrator"], roomId, async (persona, request) => {
      if (ideators.includes(persona)) {
        await released;
        return ideas(persona, 6);
      }
      // Its own run, not a stage's (its knowledge may quote earlier stage tasks).
      if (persona === "narrator" && JSON.stringify(request.messages).includes("Ask the team what the deliverable should lead with")) {
        return { toolCall: { name: "ask_others", arguments: { question: "What should the deliverable lead with?" } } };
      }
      return null;
    });
    try {
      await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
      await eventually(async () => expect((await stateOf(roomId)).stages.divergent.status).toBe("running"), 30_000);
      const narrator = team.find((agent) => agent.persona === "narrator")!;
      await startAgentRun(
        context.database.db,
        roomId,
        { agentId: narrator.id, prompt: "Ask the team what the deliverable should lead with." },
        ADA,
      );
      const [asked] = await eventually(async () => {
        const rows = await context.database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId));
        expect(rows).toHaveLength(1);
        return rows;
      }, 30_000);
      const isolated = team.filter((agent) => ideators.includes(agent.persona)).map((agent) => agent.id);
      expect(asked!.targetAgentIds.length).toBeGreaterThan(0);
      expect(asked!.targetAgentIds.filter((id) => isolated.includes(id))).toEqual([]);
      // Nor do they ask anyone: the question could carry their ideas.
      const wild = (await context.database.db.select().from(agents).where(eq(agents.roomId, roomId))).find(
        (agent) => agent.persona === "wild-ideator",
      )!;
      const deps = await broadcastDeps(context.database);
      try {
        const question = {
          roomId,
          asker: wild,
          runId: null,
          correlationId: "workflow-alone",
          question: "CANARY-wild-ideator: does this work?",
        };
        await expect(askOthers(deps, question)).rejects.toThrow("you may ask no one until it ends");
      } finally {
        await deps.stop();
      }
      expect(await context.database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId))).toHaveLength(1);
      release();
      await settled(roomId, ["awaiting_gate"]);
    } finally {
      release();
      await provider.stop();
    }
  });

  it("refuses request_agent, request_help and ask_teammate to an ideator during divergent thinking from a run that began before it, saying nothing of its work", async () => {
    // No worker: the runs stand still where the test puts them.
    const database = await createTestDatabase();
    try {
      const { roomId } = await brainstormRoom(database, { brainstorm_stage_minutes: { framing: 1 } });
      const team = await database.db.select().from(agents).where(eq(agents.roomId, roomId));
      const agentOf = (persona: string) => team.find((agent) => agent.persona === persona)!;
      const wild = agentOf("wild-ideator");
      // Runs already at work before the brainstorm began: the team each was given lists the ideators.
      const atWork = async (persona: string) => {
        const started = await startAgentRun(database.db, roomId, { agentId: agentOf(persona).id, prompt: "Work." }, ADA);
        const [run] = await database.db
          .update(runs)
          .set({ status: "running", startedAt: new Date() })
          .where(eq(runs.id, started.id))
          .returning();
        return activeRun(database, { run: run!, agent: agentOf(persona), team });
      };
      const historian = await atWork("historian");
      const ideator = await atWork("wild-ideator");
      await startBrainstorm(database.db, roomId, PROBLEM, ADA);
      expect(await sweepStageLimits(database.db, new Date(Date.now() + 61_000))).toBe(1);
      expect((await stateOf(roomId, database)).stages.divergent.status).toBe("running");
      // What the Wild Ideator has shared so far, which nothing may carry out of its stage.
      await database.db.insert(boardEntries).values({
        id: randomUUID(),
        roomId,
        agentId: wild.id,
        agentName: wild.name,
        kind: "contribution",
        content: { summary: "CANARY-wild: pit-stop drills for the first week", nodeIds: [] },
        createdAt: new Date(),
        expiresAt: new Date(Date.now() + 3600_000),
      });
      const written = async () => ({
        events: (await database.db.select({ id: events.id }).from(events).where(eq(events.roomId, roomId))).length,
        runs: (await database.db.select({ id: runs.id }).from(runs).where(eq(runs.roomId, roomId))).length,
        board: (await database.db.select({ id: boardEntries.id }).from(boardEntries).where(eq(boardEntries.roomId, roomId))).length,
        dialogues: (await database.db.select({ id: dialogues.id }).from(dialogues).where(eq(dialogues.roomId, roomId))).length,
      });
      const before = await written();
      const options = { toolCallId: "probe", messages: [], context: {} };
      const asking = createRequestTools(historian);
      const refusals = [
        await asking.request_agent.execute!(
          { targetPersona: "wild-ideator", prompt: "Build on your pit-stop drills.", refNodeIds: [] },
          options,
        ),
        await asking.request_help.execute!({ target: wild.name, question: "Which of your ideas is the boldest?" }, options),
        await createAskTeammateTool(historian).ask_teammate!.execute!(
          { target: "Wild Ideator", question: "What have you come up with so far?" },
          options,
        ),
      ];
      const refusal = {
        ok: false,
        error: `${wild.name} is working alone in the brainstorm's divergent thinking (stage 1): nobody may ask it anything until the ideas are released. Ask again once stage 1 has ended, or ask someone else.`,
      };
      expect(refusals).toEqual([refusal, refusal, refusal]);
      expect(JSON.stringify(refusals)).not.toContain("CANARY");
      expect(await written()).toEqual(before);
      // An ideator at work since before the stage asks no one either.
      expect(
        await createRequestTools(ideator).request_help.execute!(
          { target: "historian", question: "Which precedents fit my drills?" },
          options,
        ),
      ).toEqual({
        ok: false,
        error:
          "You are working alone in the brainstorm's divergent thinking (stage 1): you may ask no one until it ends. Carry on with your own ideas.",
      });
      expect(await written()).toEqual(before);
      // Refused, the request spent nothing: the Historian may still ask someone who is not working alone.
      expect(
        await asking.request_agent.execute!(
          { targetPersona: "analogist", prompt: "Which analogies fit onboarding?", refNodeIds: [] },
          options,
        ),
      ).toMatchObject({ ok: true });
    } finally {
      await database.destroy();
    }
  });

  it("calls off, as divergent thinking begins, what teammates asked of an ideator before it and was not started, saying why", async () => {
    const database = await createTestDatabase();
    try {
      const { roomId } = await brainstormRoom(database, { brainstorm_stage_minutes: { framing: 1 } });
      const team = await database.db.select().from(agents).where(eq(agents.roomId, roomId));
      const agentOf = (persona: string) => team.find((agent) => agent.persona === persona)!;
      await startBrainstorm(database.db, roomId, PROBLEM, ADA);
      // While the framers work, the Historian asks three ideators: all three are queued.
      const started = await startAgentRun(database.db, roomId, { agentId: agentOf("historian").id, prompt: "Work." }, ADA);
      const [run] = await database.db.select().from(runs).where(eq(runs.id, started.id));
      const historian = activeRun(database, { run: run!, agent: agentOf("historian"), team });
      const options = { toolCallId: "ask", messages: [], context: {} };
      const asking = createRequestTools(historian);
      expect(
        await asking.request_agent.execute!(
          { targetPersona: "wild-ideator", prompt: "Build on the pit-stop drills.", refNodeIds: [] },
          options,
        ),
      ).toMatchObject({ ok: true });
      expect(await asking.request_help.execute!({ target: "contrarian", question: "What would you invert?" }, options)).toMatchObject({
        ok: true,
      });
      expect(
        await createAskTeammateTool(historian).ask_teammate!.execute!(
          { target: "cross-pollinator", question: "Which field would you borrow from?" },
          options,
        ),
      ).toMatchObject({ ok: true });
      const ideators = ["wild-ideator", "contrarian", "cross-pollinator"].map(agentOf);
      const asked = await database.db
        .select()
        .from(runs)
        .where(
          and(
            eq(runs.roomId, roomId),
            inArray(
              runs.agentId,
              ideators.map((agent) => agent.id),
            ),
          ),
        );
      expect(asked.map((row) => row.status)).toEqual(["queued", "queued", "queued"]);

      expect(await sweepStageLimits(database.db, new Date(Date.now() + 61_000))).toBe(1);
      expect((await stateOf(roomId, database)).stages.divergent.status).toBe("running");
      const after = await database.db
        .select()
        .from(runs)
        .where(
          inArray(
            runs.id,
            asked.map((row) => row.id),
          ),
        );
      for (const ideator of ideators) {
        expect(after.find((row) => row.agentId === ideator.id)).toMatchObject({
          status: "cancelled",
          startedAt: null,
          error: {
            error_type: "cancelled",
            error_message: `Not started: ${ideator.name} is working alone in the brainstorm's divergent thinking (stage 1), where nothing from outside may shape its ideas. Ask again once stage 1 has ended.`,
          },
        });
      }
      // The request is called off, the help request closed and its asker told why there is no answer, the dialogue ended.
      const requests = await database.db
        .select()
        .from(boardEntries)
        .where(and(eq(boardEntries.roomId, roomId), eq(boardEntries.kind, "request")));
      expect(requests.map((entry) => entry.requestStatus).sort()).toEqual(["cancelled", "failed"]);
      const [help] = await database.db
        .select()
        .from(agentNotes)
        .where(and(eq(agentNotes.agentId, agentOf("historian").id), eq(agentNotes.kind, "help")));
      expect(help!.text).toBe(`Contrarian could not answer your help request ("What would you invert?"): it was cancelled`);
      expect(await database.db.select({ status: dialogues.status }).from(dialogues).where(eq(dialogues.roomId, roomId))).toEqual([
        { status: "cancelled" },
      ]);
      // The stage's own runs are the ideators' only ones.
      const stageOne = await database.db
        .select()
        .from(runs)
        .where(and(eq(runs.roomId, roomId), sql`${runs.purpose}->>'stage' = 'divergent'`));
      expect(stageOne.map((row) => row.status)).toEqual(["queued", "queued", "queued", "queued"]);
    } finally {
      await database.destroy();
    }
  });

  it("refuses people's messages to an ideator while it works alone, changing nothing, and passes over it for a message naming nobody", async () => {
    const ideators = ["wild-ideator", "cross-pollinator", "first-principles-thinker", "contrarian"];
    const { roomId, team } = await brainstormRoom(context.database, { max_concurrent_runs: 8 });
    const agentOf = (persona: string) => team.find((agent) => agent.persona === persona)!;
    const wild = agentOf("wild-ideator");
    let wildGo!: () => void;
    const wildGoes = new Promise<void>((resolve) => (wildGo = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The Wild Ideator submits once the precedents are in; the others hold divergent thinking open until released.
    const provider = await standIn(ideators, roomId, async (persona, request) => {
      if (!JSON.stringify(request.messages).includes("Brainstorm stage 1")) return null;
      await (persona === "wild-ideator" ? wildGoes : released);
      return ideas(persona, 6);
    });
    const cookie = await seatIn(roomId);
    const say = (text: string) => call(sendRoute, { url: "/x", method: "POST", params: { roomId }, body: { text }, cookie });
    const roomState = async () => ({
      notes: (await context.database.db.select({ id: agentNotes.id }).from(agentNotes).where(eq(agentNotes.roomId, roomId))).length,
      events: (await eventTypes(roomId)).length,
      runs: (await context.database.db.select({ id: runs.id }).from(runs).where(eq(runs.roomId, roomId))).length,
    });
    try {
      await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
      await eventually(async () => expect((await stateOf(roomId)).stages.precedents.status).toBe("done"), 30_000);
      // The Wild Ideator's steps are now the room's latest.
      wildGo();
      await eventually(async () => {
        const [stage1] = await context.database.db
          .select()
          .from(runs)
          .where(and(eq(runs.agentId, wild.id), sql`${runs.purpose}->>'stage' = 'divergent'`));
        expect(stage1!.status).toBe("succeeded");
      }, 30_000);
      expect((await stateOf(roomId)).stages.divergent.status).toBe("running");
      const before = await roomState();

      // Named: refused with the reason, and nothing is written — no message kept, no run, no event.
      const named = await say(`@${wild.name} Build on the pit-stop drills.`);
      expect(named.status).toBe(409);
      expect(named.body.error.message).toBe(
        `${wild.name} is working alone in the brainstorm's divergent thinking (stage 1): nobody may reach it until the ideas are released, so that what it thinks of is its own. Send this once stage 1 has ended.`,
      );
      // Started with a prompt through the runs route: refused the same way.
      const started = await call(startRunRoute, {
        url: "/x",
        method: "POST",
        params: { roomId },
        body: { agentId: wild.id, prompt: "Look at the Contrarian's ideas." },
        cookie,
      });
      expect(started.status).toBe(409);
      expect(started.body.error.message).toMatch(/working alone .*stage 1/);
      // Focused on it, a plain message is refused too.
      expect((await say(`/focus ${wild.name}`)).status).toBe(200);
      const afterFocus = await roomState();
      const focused = await say("Any news?");
      expect(focused.status).toBe(409);
      expect(await roomState()).toEqual(afterFocus);
      expect(afterFocus).toEqual({ ...before, events: before.events + 1 });

      // Naming nobody with no focus, a message goes to the latest agent that may be reached, not to the ideator.
      expect((await say("/focus")).status).toBe(200);
      const unnamed = await say("What have you found so far?");
      expect(unnamed.status).toBe(201);
      const isolated = team.filter((agent) => ideators.includes(agent.persona)).map((agent) => agent.id);
      expect(isolated).not.toContain(unnamed.body.command.agentId);
      expect(["historian", "analogist"]).toContain(team.find((agent) => agent.id === unnamed.body.command.agentId)!.persona);

      // Once the ideas are released, the ideator may be reached again.
      release();
      await eventually(async () => expect((await stateOf(roomId)).stages.divergent.status).not.toBe("running"), 30_000);
      const later = await say(`@${wild.name} Which of your ideas would you start with?`);
      expect(later.status).toBe(201);
      expect(later.body.command.agentId).toBe(wild.id);
      await settled(roomId, ["awaiting_gate"]);
    } finally {
      wildGo();
      release();
      await provider.stop();
    }
  });

  it("holds a person's message to an ideator sent before divergent thinking began until the ideas are released, then delivers it", async () => {
    // No worker yet: the message's run waits in the queue while framing runs out of time and divergent thinking begins.
    const { roomId, team } = await brainstormRoom(context.database, { brainstorm_stage_minutes: { framing: 1 }, max_concurrent_runs: 8 });
    const wild = team.find((agent) => agent.persona === "wild-ideator")!;
    const cookie = await seatIn(roomId);
    await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
    const sent = await call(sendRoute, {
      url: "/x",
      method: "POST",
      params: { roomId },
      body: { text: `@${wild.name} CANARY-MESSAGE: build on the pit-stop drills.` },
      cookie,
    });
    expect(sent.status).toBe(201);
    expect(sent.body.command).toMatchObject({ agentId: wild.id, delivery: "new_run" });
    const message = async () => (await context.database.db.select().from(agentNotes).where(eq(agentNotes.id, sent.body.command.id)))[0]!;
    expect(await sweepStageLimits(context.database.db, new Date(Date.now() + 61_000))).toBe(1);
    expect((await stateOf(roomId)).stages.divergent.status).toBe("running");
    // The run queued to act on it is not started, saying why; the message waits, neither delivered nor withdrawn.
    const [held] = await context.database.db.select().from(runs).where(eq(runs.id, sent.body.command.runId));
    expect(held).toMatchObject({
      status: "cancelled",
      startedAt: null,
      error: {
        error_type: "cancelled",
        error_message: `Not started: ${wild.name} is working alone in the brainstorm's divergent thinking (stage 1), where nothing from outside may shape its ideas. The messages this run was to act on wait, and reach ${wild.name} in a run of their own once the ideas are released.`,
      },
    });
    expect(await message()).toMatchObject({ deliveredAt: null, cancelledAt: null });

    // A stage-1 run is told of its stage; its tools tell it from a later run whose task history mentions the stage.
    const stageOne = (request: ChatRequest) => !!request.tools?.some((tool) => tool.function.name === "submit_ideas");
    const provider = await standIn(["wild-ideator"], roomId, (_persona, request) => (stageOne(request) ? ideas("Wild", 6) : null));
    try {
      await eventually(async () => expect((await stateOf(roomId)).stages.divergent.status).not.toBe("running"), 30_000);
      const delivered = await eventually(async () => {
        const row = await message();
        expect(row.deliveredToRunId).not.toBeNull();
        return row;
      }, 30_000);
      // Delivered once the ideas were released, to a run of its own, not to a run of divergent thinking.
      const [reader] = await context.database.db.select().from(runs).where(eq(runs.id, delivered.deliveredToRunId!));
      expect(reader).toMatchObject({ agentId: wild.id, trigger: "command", purpose: null });
      const release = (
        await context.database.db
          .select()
          .from(events)
          .where(and(eq(events.roomId, roomId), eq(events.type, "brainstorm.ideas_released")))
      )[0]!;
      expect(reader!.createdAt.getTime()).toBeGreaterThanOrEqual(release.createdAt.getTime());
      const [stage1] = await stageRuns(roomId, "divergent").then((rows) => rows.filter((run) => run.agentId === wild.id));
      expect(stage1!.status).toBe("succeeded");
      // The Wild Ideator's stage-1 prompts never held it; the run that read it did.
      const stageOneRequests = provider.server.requests.filter(stageOne);
      expect(stageOneRequests.length).toBeGreaterThan(0);
      for (const request of stageOneRequests) expect(JSON.stringify(request.messages)).not.toContain("CANARY-MESSAGE");
      await eventually(
        () =>
          expect(
            provider.server.requests.map((request) => JSON.stringify(request.messages)).filter((text) => text.includes("CANARY-MESSAGE")),
          ).toHaveLength(1),
        30_000,
      );
      await settled(roomId, ["awaiting_gate"]);
    } finally {
      await provider.stop();
    }
  });

  it("delivers the messages held for an ideator when the brainstorm is stopped during divergent thinking", async () => {
    const { roomId, team } = await brainstormRoom(context.database, { brainstorm_stage_minutes: { framing: 1 } });
    const wild = team.find((agent) => agent.persona === "wild-ideator")!;
    const cookie = await seatIn(roomId);
    const started = await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
    const sent = await call(sendRoute, {
      url: "/x",
      method: "POST",
      params: { roomId },
      body: { text: `@${wild.name} Start from the pit-stop drills.` },
      cookie,
    });
    expect(sent.status).toBe(201);
    await sweepStageLimits(context.database.db, new Date(Date.now() + 61_000));
    const commandRuns = () =>
      context.database.db
        .select()
        .from(runs)
        .where(and(eq(runs.agentId, wild.id), eq(runs.trigger, "command")))
        .orderBy(asc(runs.createdAt));
    expect((await commandRuns()).map((run) => run.status)).toEqual(["cancelled"]);
    // Its divergent-thinking run ends (cancelled here) while the stage goes on: the message gets no run while it works alone.
    const [stage1] = (await stageRuns(roomId, "divergent")).filter((run) => run.agentId === wild.id);
    expect(await cancelRun(context.database.db, roomId, stage1!.id, ADA)).toBe("cancelled");
    expect((await stateOf(roomId)).stages.divergent.status).toBe("running");
    expect((await commandRuns()).map((run) => run.status)).toEqual(["cancelled"]);
    const stopped = await call(cancelRoute, { url: "/x", method: "POST", params: { roomId, brainstormId: started.id }, cookie });
    expect(stopped.status).toBe(200);
    // No release will come: the message gets a run of its own now, and still waits for it.
    expect((await commandRuns()).map((run) => run.status)).toEqual(["cancelled", "queued"]);
    const [waiting] = await context.database.db.select().from(agentNotes).where(eq(agentNotes.id, sent.body.command.id));
    expect(waiting).toMatchObject({ deliveredAt: null, cancelledAt: null });
  });

  it("stops a stage at its time limit and goes on with what it has", async () => {
    const { roomId } = await brainstormRoom(context.database, { brainstorm_stage_minutes: { framing: 1 } });
    await startBrainstorm(context.database.db, roomId, PROBLEM, ADA);
    // No worker runs: the framing stage's first run waits in the queue until its minute is up.
    expect(await sweepStageLimits(context.database.db, new Date(Date.now() + 30_000))).toBe(0);
    expect(await sweepStageLimits(context.database.db, new Date(Date.now() + 61_000))).toBe(1);
    const row = await stateOf(roomId);
    expect(row.stages.framing).toMatchObject({ status: "short", timedOut: true });
    expect(row.stages.framing.shortfall).toMatch(/Missing: the scope/);
    expect(statuses(row)).toMatchObject({ divergent: "running", precedents: "running" });
    const cancelled = await stageRuns(roomId, "framing");
    expect(cancelled.map((run) => run.status)).toEqual(["cancelled"]);
  });

  it("resumes at the same stage after a restart in convergent thinking", async () => {
    const database = await createTestDatabase({ durable: true });
    let reopened = database;
    try {
      const { roomId } = await brainstormRoom(database);
      const worker = await startTestWorker(database, {
        resolveModel: (spec) => resolveModel(spec, { scriptPaceMs: 0, scriptThinkMs: 150 }),
      });
      await startBrainstorm(database.db, roomId, PROBLEM, ADA);
      await eventually(async () => expect((await stateOf(roomId, database)).stages.convergent.status).toBe("running"), 30_000);
      await worker.stop();
      const before = await database.db.select({ id: runs.id }).from(runs).where(eq(runs.roomId, roomId));
      reopened = await database.reopen();
      expect((await stateOf(roomId, reopened)).stages.convergent).toMatchObject({ status: "running", passes: 1 });
      const again = await startTestWorker(reopened);
      try {
        const atGate = await settled(roomId, ["awaiting_gate"], reopened);
        expect(atGate.stages.convergent).toMatchObject({ status: "done", passes: 1 });
        expect(atGate.stages.framing.passes).toBe(1);
        expect(atGate.stages.divergent.passes).toBe(1);
        const after = await reopened.db.select({ id: runs.id, purpose: runs.purpose }).from(runs).where(eq(runs.roomId, roomId));
        // Nothing before convergent thinking ran again.
        const earlier = after.filter((run) => ["framing", "divergent", "precedents"].includes((run.purpose as { stage: string }).stage));
        expect(earlier.every((run) => before.some((seen) => seen.id === run.id))).toBe(true);
      } finally {
        await again.stop();
      }
    } finally {
      await reopened.destroy();
    }
  });
});
