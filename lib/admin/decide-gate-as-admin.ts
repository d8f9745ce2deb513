import { createHash } from "node:crypto";
import type { Db } from "@/db";
import { type GateDecisionInput, decideGate } from "@/lib/brainstorm/decide-gate";
import { ADMIN_ACTOR, type CarriedChanges } from "@/lib/events/write-room-events";
import { findRoom } from "@/lib/rooms/list-rooms";
import { adminActionInsert } from "./admin-actions";

function summarize(input: GateDecisionInput): string {
  const at = `at the brainstorm's gate (round ${input.round})`;
  switch (input.action) {
    case "approve":
      return `Approved the shortlist ${at}`;
    case "drop":
      return `Dropped ${input.candidateId} ${at}`;
    case "redirect":
      return `Redirected the ranking ${at}`;
    case "deepen":
      return `Asked to deepen ${input.candidateId} ${at}`;
  }
}

/** One id per round of a brainstorm's gate, which is decided once: a retried decision finds its record there already. */
function decisionRecordId(brainstormId: string, round: number): string {
  const hex = createHash("sha256").update(`brainstorm.gate_decided\n${brainstormId}\n${round}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * An admin without a seat decides at a brainstorm's gate (`decideGate`, as `admin`). The
 * decision is recorded in the audit trail in the decision's own transaction: the record rides
 * along with the write, so a refused decision (a round decided already, a candidate not on the
 * shortlist) leaves none, and a retried one (the same `Idempotency-Key`) no second.
 */
export async function decideGateAsAdmin(
  db: Db,
  roomId: string,
  brainstormId: string,
  input: GateDecisionInput,
  options: { idempotencyKey?: string } = {},
) {
  const room = await findRoom(db, roomId);
  const record = adminActionInsert(db, {
    id: decisionRecordId(brainstormId, input.round),
    action: "brainstorm.gate_decided",
    roomId,
    roomTitle: room?.title ?? null,
    summary: summarize(input),
    details: { brainstormId, ...input },
  }).onConflictDoNothing();
  let taken = false;
  const carry: CarriedChanges = {
    take: () => {
      if (taken) return null;
      taken = true;
      return { change: record.getSQL(), giveBack: () => {} };
    },
  };
  return decideGate(db, roomId, brainstormId, input, ADMIN_ACTOR, { ...options, carry });
}
