import { MockLanguageModelV4 } from "ai/test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agentNotes, broadcasts } from "@/db/schema";
import { readEventsAfter } from "@/lib/events/read-events";
import { agentByPersona } from "@/test/agents";
import { broadcastStatus, latencyResolver, setLatency, testSeat, useBroadcastDeps, waitForOpenQuestion } from "@/test/broadcasts";
import { createTestRoom, eventually } from "@/test/fixtures";
import { answerHumanQuestion } from "./answer-question";
import { askAgain } from "./ask-again";
import { type AskOthersInput, type AskOthersResult, askOthers } from "./ask-others";

const context = useBroadcastDeps();

/** A run's call, as the ask_others tool makes it: the same key each time the same call is made. */
async function askAs(
  roomId: string,
  persona: string,
  idempotencyKey: string,
  extra: Partial<AskOthersInput> & { resolveModel?: typeof latencyResolver } = {},
): Promise<AskOthersResult> {
  const { resolveModel = latencyResolver, ...input } = extra;
  const asker = await agentByPersona(context.database, roomId, persona);
  return askOthers(
    { ...context.deps, resolveModel },
    { roomId, asker, runId: "run-asking", correlationId: "c", question: "Rain or streetlights?", idempotencyKey, ...input },
  );
}

/** Counts the shadows launched: each resolves its responder's model once. */
function countingShadows() {
  const launched: string[] = [];
  const resolveModel = (spec: string) => {
    launched.push(spec);
    return latencyResolver(spec);
  };
  return { launched, resolveModel };
}

/** The room's events about the questions of `roomId`, as `type`, in order. */
async function questionEvents(roomId: string) {
  const events = await readEventsAfter(context.database.db, roomId, 0, 2000);
  return events.map((event) => event.type).filter((type) => type.startsWith("broadcast."));
}

const byResponder = (result: AskOthersResult) => [...result.responses].sort((a, b) => a.responder_id.localeCompare(b.responder_id));

describe("ask_others made again under the same key", () => {
  it("asks once and answers the call made again with what the question got; another call asks anew", async () => {
    const { roomId } = await createTestRoom(context.database.db, { broadcast: "agents" });
    const shadows = countingShadows();
    const first = await askAs(roomId, "songwriter", "run:1:0:call:0", { resolveModel: shadows.resolveModel });
    expect(first.status).toBe("complete");
    expect(first.responses).toHaveLength(4);

    const again = await askAs(roomId, "songwriter", "run:1:0:call:0", { resolveModel: shadows.resolveModel });
    expect(again.status).toBe("complete");
    expect(byResponder(again)).toEqual(byResponder(first));
    expect(shadows.launched).toHaveLength(4);
    expect(await context.database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId))).toHaveLength(1);
    expect(await questionEvents(roomId)).toEqual(["broadcast.asked", ...Array(4).fill("broadcast.response"), "broadcast.closed"]);
    expect(await context.database.db.select().from(agentNotes).where(eq(agentNotes.roomId, roomId))).toHaveLength(4);

    // The same question in another call (the next identical call of the step, say) is a question of its own.
    const other = await askAs(roomId, "songwriter", "run:1:0:call:1", { resolveModel: shadows.resolveModel });
    expect(other.status).toBe("complete");
    expect(shadows.launched).toHaveLength(8);
    expect(await context.database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId))).toHaveLength(2);
  });

  it("waits for the answers of the shadows already asked, without asking them again", async () => {
    const { roomId, agents } = await createTestRoom(context.database.db, { broadcast: "agents", broadcast_timeout: 30 });
    for (const agent of agents) if (agent.persona !== "songwriter") await setLatency(context.database, agent.id, 400);
    const shadows = countingShadows();
    // The earlier call still runs where its run was lost, while the run's next attempt makes it again.
    const earlier = askAs(roomId, "songwriter", "run:1:0:call:0", { resolveModel: shadows.resolveModel });
    await eventually(async () => expect(await questionEvents(roomId)).toEqual(["broadcast.asked"]));
    const again = await askAs(roomId, "songwriter", "run:1:0:call:0", { resolveModel: shadows.resolveModel });

    expect(again.status).toBe("complete");
    expect(byResponder(again)).toEqual(byResponder(await earlier));
    expect(again.responses).toHaveLength(4);
    expect(shadows.launched).toHaveLength(4);
    expect(await questionEvents(roomId)).toEqual(["broadcast.asked", ...Array(4).fill("broadcast.response"), "broadcast.closed"]);
  });

  it("keeps to the deadline the question was given when it was asked", async () => {
    const { roomId, agents } = await createTestRoom(context.database.db, { broadcast: "agents", broadcast_timeout: 2 });
    for (const agent of agents) if (agent.persona !== "songwriter") await setLatency(context.database, agent.id, 8000);
    const shadows = countingShadows();
    // The earlier call's run is stopped while its shadows answer: the question is left to the run.
    const stop = new AbortController();
    const earlier = askAs(roomId, "songwriter", "run:1:0:call:0", { resolveModel: shadows.resolveModel, signal: stop.signal });
    await new Promise((resolve) => setTimeout(resolve, 800));
    stop.abort(new Error("lease_lost"));
    expect((await earlier).status).toBe("cancelled");
    const [asked] = await context.database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId));
    expect(asked!.status).toBe("pending");

    const started = performance.now();
    const again = await askAs(roomId, "songwriter", "run:1:0:call:0", { resolveModel: shadows.resolveModel });
    expect(again).toEqual({ status: "timeout", responses: [] });
    expect(performance.now() - started).toBeLessThan(1700);
    // The stopped call's shadows stopped with it; the call made again asked them again.
    expect(shadows.launched).toHaveLength(8);
    const [closed] = await context.database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId));
    expect(closed!.deadlineAt).toEqual(asked!.deadlineAt);
    expect(closed!.closedAt!.getTime()).toBeGreaterThanOrEqual(asked!.deadlineAt!.getTime());
  });

  it("asks again only the agents whose shadows stopped with the worker that asked, and stores one answer each", async () => {
    const { roomId, agents } = await createTestRoom(context.database.db, { broadcast: "agents", broadcast_timeout: 30 });
    const others = agents.filter((agent) => agent.persona !== "songwriter");
    const [quick, ...slow] = others;
    await setLatency(context.database, quick!.id, 0);
    for (const agent of slow) await setLatency(context.database, agent.id, 20_000);
    const shadows = countingShadows();
    // The worker asking is stopped once the quickest shadow has answered: the others stop with it.
    const stop = new AbortController();
    const earlier = askAs(roomId, "songwriter", "run:1:0:call:0", { resolveModel: shadows.resolveModel, signal: stop.signal });
    await eventually(async () => expect(await questionEvents(roomId)).toEqual(["broadcast.asked", "broadcast.response"]));
    stop.abort(new Error("lease_lost"));
    expect((await earlier).status).toBe("cancelled");

    for (const agent of slow) await setLatency(context.database, agent.id, 0);
    const started = performance.now();
    const again = await askAs(roomId, "songwriter", "run:1:0:call:0", { resolveModel: shadows.resolveModel });
    expect(again.status).toBe("complete");
    expect(performance.now() - started).toBeLessThan(5000);
    expect(again.responses.map((answer) => answer.responder_name).sort()).toEqual(others.map((agent) => agent.name).sort());
    expect(shadows.launched).toHaveLength(4 + slow.length);
    expect(await questionEvents(roomId)).toEqual(["broadcast.asked", ...Array(4).fill("broadcast.response"), "broadcast.closed"]);
  });

  it("stops waiting as soon as its asker stops, and stores no answer that comes after", async () => {
    const { roomId } = await createTestRoom(context.database.db, { broadcast: "agents", broadcast_timeout: 30 });
    // Shadows whose provider answers after the asker stopped, not hearing the stop.
    const deaf = new MockLanguageModelV4({
      doGenerate: async () => {
        await new Promise((resolve) => setTimeout(resolve, 600));
        return {
          content: [{ type: "text", text: "Keep the rain." }],
          finishReason: { unified: "stop", raw: "stop" },
          usage: { inputTokens: { total: 9, noCache: 9, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 4, text: 4, reasoning: 0 } },
          warnings: [],
        };
      },
    });
    const resolveModel = (spec: string) => ({ ...latencyResolver(spec), model: deaf });
    const stop = new AbortController();
    const earlier = askAs(roomId, "songwriter", "run:1:0:call:0", { resolveModel, signal: stop.signal });
    await eventually(async () => expect(await questionEvents(roomId)).toEqual(["broadcast.asked"]));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stopped = performance.now();
    stop.abort(new Error("lease_lost"));
    expect(await earlier).toEqual({ status: "cancelled", responses: [] });
    expect(performance.now() - stopped).toBeLessThan(300);

    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(await questionEvents(roomId)).toEqual(["broadcast.asked"]);
    const [asked] = await context.database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId));
    expect(asked!.status).toBe("pending");
  });

  it("leaves a person's question open on the page and collects its answer, taking no second slot", async () => {
    const { roomId } = await createTestRoom(context.database.db, {
      broadcast: "human",
      broadcast_timeout: 30,
      max_broadcasts_per_agent: 1,
    });
    const seat = await testSeat(context.database, roomId);
    const stop = new AbortController();
    const earlier = askAs(roomId, "songwriter", "run:1:0:call:0", { signal: stop.signal, options: ["rain", "streetlights"] });
    const open = await waitForOpenQuestion(context.database, roomId);
    stop.abort(new Error("lease_lost"));
    expect((await earlier).status).toBe("cancelled");
    expect(await broadcastStatus(context.database, open.id)).toBe("open");

    const again = askAs(roomId, "songwriter", "run:1:0:call:0", { options: ["rain", "streetlights"] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await broadcastStatus(context.database, open.id)).toBe("open");
    await answerHumanQuestion(context.database.db, roomId, open.id, seat, "streetlights");
    expect(await again).toEqual({
      status: "complete",
      responses: [{ responder_id: "human", responder_name: "Ada", content: "streetlights", is_human: true }],
    });
    expect(await context.database.db.select().from(broadcasts).where(eq(broadcasts.roomId, roomId))).toHaveLength(1);
    expect(await questionEvents(roomId)).toEqual(["broadcast.asked", "broadcast.opened", "broadcast.response", "broadcast.closed"]);
  });

  it("gives back the earlier answer a reused question was given, not one that came since", async () => {
    const { roomId } = await createTestRoom(context.database.db, { broadcast: "human", broadcast_timeout: 30 });
    const seat = await testSeat(context.database, roomId);
    const asked = askAs(roomId, "scene-painter", "run:0", { question: "What mood?", runId: null });
    const open = await waitForOpenQuestion(context.database, roomId);
    await answerHumanQuestion(context.database.db, roomId, open.id, seat, "Melancholic");
    await asked;

    const first = await askAs(roomId, "songwriter", "run:1:0:call:0", { question: "What mood?" });
    expect(first).toMatchObject({ status: "reused", responses: [{ content: "Melancholic", is_human: true }] });
    // A person asks the room again and gives a fresh answer; the call made again still gets what it got.
    const [reused] = await context.database.db
      .select()
      .from(broadcasts)
      .where(and(eq(broadcasts.roomId, roomId), eq(broadcasts.status, "reused")));
    await askAgain(context.database.db, roomId, reused!.id, seat);
    const again = await waitForOpenQuestion(context.database, roomId);
    await answerHumanQuestion(context.database.db, roomId, again.id, seat, "Bright");
    expect(await askAs(roomId, "songwriter", "run:1:0:call:0", { question: "What mood?" })).toEqual(first);
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    expect(await context.database.db.select().from(broadcasts).where(eq(broadcasts.agentId, songwriter.id))).toHaveLength(2);
  });
});
