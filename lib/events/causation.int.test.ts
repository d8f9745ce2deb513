import { and, asc, eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as decideRoute } from "@/app/api/rooms/[roomId]/brainstorms/[brainstormId]/gate/route";
import { POST as startBrainstormRoute } from "@/app/api/rooms/[roomId]/brainstorms/route";
import { POST as startReviewRoute } from "@/app/api/rooms/[roomId]/build-reviews/route";
import { POST as takeSeat } from "@/app/api/rooms/[roomId]/seat/route";
import { brainstorms, buildReviews, events, runs } from "@/db/schema";
import { createRoom } from "@/lib/rooms/create-room";
import { startTestWorker } from "@/test/agents";
import { eventually } from "@/test/fixtures";
import { call, cookieFrom } from "@/test/http";
import { useTestRuntime } from "@/test/test-runtime";
import { eventFromRow } from "./event-row";
import { validTraceparent } from "./cause";

const context = useTestRuntime();
const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const TRACEPARENT = `00-${CALLER_TRACE}-00f067aa0ba902b7-01`;

async function seatIn(roomId: string, name = "Ada") {
  const seat = await call(takeSeat, { url: "/x", method: "POST", params: { roomId }, body: { displayName: name } });
  return cookieFrom(seat.headers.get("set-cookie"));
}

async function roomLog(roomId: string) {
  const rows = await context.database.db.select().from(events).where(eq(events.roomId, roomId)).orderBy(asc(events.seq));
  return rows.map(eventFromRow);
}

/** Where each event's chain of causes ends: the root it descends from (throws on a cycle or a missing cause). */
function rootsOf(log: Awaited<ReturnType<typeof roomLog>>): Map<string, string> {
  const byId = new Map(log.map((event) => [event.id, event]));
  const roots = new Map<string, string>();
  for (const event of log) {
    let current = event;
    const seen = new Set<string>();
    while (current.causation_id) {
      if (seen.has(current.id)) throw new Error(`A cycle of causes at ${current.id}`);
      seen.add(current.id);
      const cause = byId.get(current.causation_id);
      if (!cause) throw new Error(`${current.type} ${current.id} names a cause not in the room: ${current.causation_id}`);
      // A cause is always stored before its effect.
      expect(cause.seq).toBeLessThan(current.seq);
      current = cause;
    }
    roots.set(event.id, current.id);
  }
  return roots;
}

/** Asserts that every event of the workflow, and everything its events caused, descends from one root. */
function oneTree(log: Awaited<ReturnType<typeof roomLog>>, correlationId: string) {
  const roots = rootsOf(log);
  const workflow = log.filter((event) => event.correlation_id === correlationId);
  expect(workflow.length).toBeGreaterThan(5);
  const workflowRoots = new Set(workflow.map((event) => roots.get(event.id)));
  expect(workflowRoots.size).toBe(1);
  const [rootId] = [...workflowRoots];
  const root = log.find((event) => event.id === rootId);
  // Everything in the tree outside the workflow's correlation is its own work too (a stage's notes, say).
  const tree = log.filter((event) => roots.get(event.id) === rootId);
  return { root, tree, workflow };
}

describe("causation", () => {
  it("makes a build review one tree, every event's causes reaching the request that started it, joined to the caller's trace", async () => {
    const worker = await startTestWorker(context.database);
    try {
      const { room } = await createRoom(context.database.db, { title: "Review", template: "build-review" });
      const cookie = await seatIn(room.id);
      const started = await call(startReviewRoute, {
        url: "/x",
        method: "POST",
        params: { roomId: room.id },
        body: { task: "Write a function that counts the words in a sentence" },
        cookie,
        headers: { traceparent: TRACEPARENT },
      });
      expect(started.status).toBe(201);
      const review = await eventually(async () => {
        const [row] = await context.database.db.select().from(buildReviews).where(eq(buildReviews.roomId, room.id));
        expect(["approved", "not_approved"]).toContain(row!.status);
        const active = await context.database.db
          .select({ id: runs.id })
          .from(runs)
          .where(and(eq(runs.roomId, room.id), inArray(runs.status, ["queued", "running"])));
        expect(active).toHaveLength(0);
        return row!;
      }, 30_000);
      const log = await roomLog(room.id);
      const { root, tree, workflow } = oneTree(log, review.correlationId);
      expect(root).toMatchObject({ type: "review.started", causation_id: null, trace_parent: TRACEPARENT });
      // Only the root keeps the caller's trace context; every other event of the tree has a cause.
      expect(tree.filter((event) => event.trace_parent)).toHaveLength(1);
      const types = new Set(workflow.map((event) => event.type));
      for (const type of ["run.queued", "run.started", "run.step", "run.finished", "review.code", "review.verdict", "review.closed"]) {
        expect(types).toContain(type);
      }
      // A run's steps descend from its run.started, which descends from its run.queued.
      const byId = new Map(log.map((event) => [event.id, event]));
      for (const step of workflow.filter((event) => event.type === "run.step")) {
        expect(byId.get(step.causation_id ?? "")?.type).toBe("run.started");
      }
      for (const start of workflow.filter((event) => event.type === "run.started")) {
        expect(byId.get(start.causation_id ?? "")?.type).toBe("run.queued");
      }
      const runRows = await context.database.db.select().from(runs).where(eq(runs.correlationId, review.correlationId));
      expect(runRows.length).toBeGreaterThan(2);
      for (const run of runRows) expect(byId.get(run.causeEventId ?? "")?.type).toBe("run.started");
    } finally {
      await worker.stop();
    }
  });

  it("makes a brainstorm one tree through a Deepen and an Approve: the runs they start are caused by the decisions", async () => {
    const worker = await startTestWorker(context.database);
    try {
      const { room } = await createRoom(context.database.db, { title: "Onboarding", template: "brainstorm" });
      const cookie = await seatIn(room.id);
      const started = await call(startBrainstormRoute, {
        url: "/x",
        method: "POST",
        params: { roomId: room.id },
        body: { problem: "How might we cut onboarding time for new engineers?" },
        cookie,
      });
      expect(started.status).toBe(201);
      const settled = (status: string) =>
        eventually(async () => {
          const [row] = await context.database.db.select().from(brainstorms).where(eq(brainstorms.roomId, room.id));
          expect(row!.status).toBe(status);
          const active = await context.database.db
            .select({ id: runs.id })
            .from(runs)
            .where(and(eq(runs.roomId, room.id), inArray(runs.status, ["queued", "running"])));
          expect(active).toHaveLength(0);
          return row!;
        }, 30_000);
      let gate = await settled("awaiting_gate");
      const ranking = (await roomLog(room.id)).findLast((event) => event.type === "brainstorm.gate_opened")?.payload as {
        ranking: { id: string }[];
      };
      const candidate = ranking.ranking[0]?.id ?? "";
      const deepened = await call(decideRoute, {
        url: "/x",
        method: "POST",
        params: { roomId: room.id, brainstormId: gate.id },
        body: { action: "deepen", round: gate.gateRound, candidateId: candidate },
        cookie,
      });
      expect(deepened.status).toBe(200);
      gate = await settled("awaiting_gate");
      const approved = await call(decideRoute, {
        url: "/x",
        method: "POST",
        params: { roomId: room.id, brainstormId: gate.id },
        body: { action: "approve", round: gate.gateRound },
        cookie,
      });
      expect(approved.status).toBe(200);
      const done = await settled("complete");

      const log = await roomLog(room.id);
      const { root, workflow } = oneTree(log, done.correlationId);
      expect(root).toMatchObject({ type: "brainstorm.started", causation_id: null });
      expect(root?.trace_parent).toBeUndefined();
      const byId = new Map(log.map((event) => [event.id, event]));
      const decisions = workflow.filter((event) => event.type === "brainstorm.gate_decided");
      expect(decisions).toHaveLength(2);
      for (const decision of decisions) {
        // A person's decision answers the gate that was open.
        expect(byId.get(decision.causation_id ?? "")?.correlation_id).toBe(done.correlationId);
        // The runs it starts are its consequences.
        const caused = workflow.filter((event) => event.type === "run.queued" && event.causation_id === decision.id);
        expect(caused.length).toBeGreaterThan(0);
      }
    } finally {
      await worker.stop();
    }
  });

  it("reads a W3C traceparent and refuses a malformed one", () => {
    expect(validTraceparent(TRACEPARENT)).toBe(TRACEPARENT);
    expect(validTraceparent(` ${TRACEPARENT.toUpperCase()} `)).toBe(TRACEPARENT);
    expect(validTraceparent(`00-${"0".repeat(32)}-00f067aa0ba902b7-01`)).toBeNull();
    expect(validTraceparent(`00-${CALLER_TRACE}-${"0".repeat(16)}-01`)).toBeNull();
    expect(validTraceparent("not a traceparent")).toBeNull();
    expect(validTraceparent(null)).toBeNull();
  });
});
