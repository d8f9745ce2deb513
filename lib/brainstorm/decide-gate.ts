import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db";
import { agents } from "@/db/schema";
import { badRequest, conflict, notFound } from "@/lib/errors";
import { type Actor, type WriteRequestOptions, eventPayload, writeRoomEvents } from "@/lib/events/write-room-events";
import type { GateDecisionDto } from "@/lib/protocol/brainstorm";
import { type BrainstormStep, FINISHED, currentDto, enterStage, lockBrainstorm, saveBrainstorm } from "./advance-brainstorm";
import { droppedCandidates, rankCandidates, readWork } from "./work";

const round = z.number().int().positive().describe("The gate's round the decision was made on (a drop opens the next)");
const candidateId = z.string().trim().min(1).max(16);

/** The four things participants may decide at the gate. */
export const gateDecisionInputSchema = z.discriminatedUnion("action", [
  z.strictObject({ action: z.literal("approve"), round }),
  z.strictObject({ action: z.literal("drop"), round, candidateId }),
  z.strictObject({ action: z.literal("redirect"), round, comment: z.string().trim().min(1, "Say where to take the ranking").max(1000) }),
  z.strictObject({ action: z.literal("deepen"), round, candidateId }),
]);
export type GateDecisionInput = z.infer<typeof gateDecisionInputSchema>;

const DONE = { approve: "approved the shortlist", drop: "dropped", redirect: "redirected the ranking", deepen: "asked to deepen" } as const;

/**
 * A participant's decision at the gate, on the round they saw: approve (the Architect takes the
 * top candidate), drop a candidate (re-ranked at once; the gate opens its next round, announced
 * as every opening is),
 * redirect with a comment (prioritization again), or deepen one candidate (fact checking again
 * on it, then prioritization). A decision on a round someone else already decided is a 409
 * naming who decided first; a gate that is not open is a 409 too.
 */
export async function decideGate(
  db: Db,
  roomId: string,
  brainstormId: string,
  input: GateDecisionInput,
  actor: Actor,
  options: WriteRequestOptions = {},
) {
  const { events } = await writeRoomEvents(
    db,
    roomId,
    async (tx, emit, at) => {
      let brainstorm = await lockBrainstorm(tx, brainstormId);
      if (!brainstorm || brainstorm.roomId !== roomId) throw notFound("Brainstorm");
      const earlier = brainstorm.decisions.find((decision) => decision.round === input.round);
      if (earlier) {
        const what = `${DONE[earlier.action]}${earlier.candidateId ? ` ${earlier.candidateId}` : ""}`;
        throw conflict(`${earlier.byName} decided round ${input.round} of the gate first (${what}).`);
      }
      if (FINISHED.has(brainstorm.status) || brainstorm.status !== "awaiting_gate") {
        throw conflict(
          `The brainstorm is not waiting at the gate (it is ${brainstorm.status === "running" ? "still working" : brainstorm.status}).`,
        );
      }
      if (input.round !== brainstorm.gateRound)
        throw conflict(`The gate is at round ${brainstorm.gateRound}, not ${input.round}: reload the shortlist.`);
      const work = await readWork(tx, brainstorm.id);
      const ranking = rankCandidates(work, droppedCandidates(brainstorm));
      const target = "candidateId" in input ? input.candidateId : null;
      if (target && !ranking.some((candidate) => candidate.id === target)) {
        throw badRequest(
          `${target} is not on the shortlist; choose one of ${ranking.map((candidate) => candidate.id).join(", ") || "(none)"}.`,
        );
      }
      if (input.action === "approve" && ranking.length === 0)
        throw conflict("Nothing is left on the shortlist to approve: redirect the ranking instead.");
      const decision: GateDecisionDto = {
        round: input.round,
        action: input.action,
        candidateId: target,
        comment: input.action === "redirect" ? input.comment : null,
        byId: actor.id,
        byName: actor.name,
        at: at.toISOString(),
      };
      const team = await tx.select().from(agents).where(eq(agents.roomId, roomId));
      const step: BrainstormStep = { tx, emit, at, team };
      const stages = brainstorm.stages;
      const ended = { ...stages.gate, status: "done" as const, endedAt: at.toISOString() };
      switch (input.action) {
        case "approve":
          brainstorm = await saveBrainstorm(step, brainstorm, {
            decisions: [...brainstorm.decisions, decision],
            chosenCandidateId: ranking[0]!.id,
            status: "running",
            stages: { ...stages, gate: ended },
          });
          break;
        case "drop":
          brainstorm = await saveBrainstorm(step, brainstorm, { decisions: [...brainstorm.decisions, decision] });
          break;
        case "redirect":
          brainstorm = await saveBrainstorm(step, brainstorm, {
            decisions: [...brainstorm.decisions, decision],
            redirect: input.comment,
            status: "running",
            stages: { ...stages, gate: { ...ended, status: "pending" } },
          });
          break;
        case "deepen":
          brainstorm = await saveBrainstorm(step, brainstorm, {
            decisions: [...brainstorm.decisions, decision],
            deepenCandidateId: input.candidateId,
            status: "running",
            stages: { ...stages, gate: { ...ended, status: "pending" } },
          });
          break;
      }
      emit({
        type: "brainstorm.gate_decided",
        actor,
        correlationId: brainstorm.correlationId,
        payload: { brainstormId, decision, brainstorm: await currentDto(step, brainstorm) },
      });
      const next = { approve: "review", drop: "gate", redirect: "prioritization", deepen: "fact_check" } as const;
      await enterStage(step, brainstorm, next[input.action], null);
    },
    options.idempotencyKey
      ? {
          ...options,
          idempotencyKey: options.idempotencyKey,
          change: { type: "brainstorm.gate_decided", request: { by: actor.id, brainstormId, input } },
        }
      : { ...options, idempotencyKey: undefined },
  );
  const decided = eventPayload(events, "brainstorm.gate_decided");
  // After a drop, the brainstorm as the round it opened shows it.
  const reopened = events.findLast((event) => event.type === "brainstorm.gate_opened");
  return reopened ? { ...decided, brainstorm: eventPayload([reopened], "brainstorm.gate_opened").brainstorm } : decided;
}
