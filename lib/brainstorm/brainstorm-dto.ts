import { desc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { type Brainstorm, brainstorms } from "@/db/schema";
import type { BrainstormDto } from "@/lib/protocol/brainstorm";
import type { RoomSettings } from "@/lib/rooms/room-settings";
import { type BrainstormWork, droppedCandidates, rankCandidates, readWork } from "./work";

/** The brainstorm as the page shows it; the ranking is the one the gate decides on. */
export function brainstormToDto(
  brainstorm: Brainstorm,
  work: BrainstormWork,
  settings: Pick<RoomSettings, "brainstorm_gate">,
): BrainstormDto {
  return {
    id: brainstorm.id,
    problem: brainstorm.problem,
    correlationId: brainstorm.correlationId,
    status: brainstorm.status,
    stages: brainstorm.stages,
    gateRound: brainstorm.gateRound,
    gateOpenedAt: brainstorm.gateOpenedAt?.toISOString() ?? null,
    ranking: work.scores.length ? rankCandidates(work, droppedCandidates(brainstorm)) : [],
    decisions: brainstorm.decisions,
    chosenCandidateId: brainstorm.chosenCandidateId,
    gateDeciders: settings.brainstorm_gate,
    hasDeliverable: brainstorm.deliverable !== null,
    createdAt: brainstorm.createdAt.toISOString(),
    finishedAt: brainstorm.finishedAt?.toISOString() ?? null,
  };
}

/** The room's latest brainstorm, as the page shows it, or null. */
export async function latestBrainstorm(
  tx: DbOrTx,
  roomId: string,
  settings: Pick<RoomSettings, "brainstorm_gate">,
): Promise<BrainstormDto | null> {
  const [brainstorm] = await tx
    .select()
    .from(brainstorms)
    .where(eq(brainstorms.roomId, roomId))
    .orderBy(desc(brainstorms.createdAt))
    .limit(1);
  if (!brainstorm) return null;
  return brainstormToDto(brainstorm, await readWork(tx, brainstorm.id), settings);
}
