import { type SQL, eq, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { type Agent, runs, spendReservations } from "@/db/schema";
import type { ReservationHooks } from "@/lib/agents/reserve-calls";
import { getEnv } from "@/lib/env";
import { callWorstCase, releaseReservation, reserveSpend } from "@/lib/limits/reserve-spend";
import type { RoomSettings } from "@/lib/rooms/room-settings";
import type { AskOthersInput } from "./question";

/**
 * A shadow's answer is a model call made for the asking run: it reserves what it could spend
 * against the budgets under that run's lease, as the run's own calls do, so the reservation
 * lapses with the run if its worker dies. A question asked by no running run reserves nothing
 * (only the checks before it apply). `settling` wraps the statement that counts the answer's
 * usage so that the reservation goes in the same statement.
 */
export async function shadowReservations(
  db: Db,
  input: Pick<AskOthersInput, "runId" | "roomId">,
  responder: Agent,
  settings: RoomSettings,
): Promise<{ hooks: ReservationHooks; settling(usage: SQL): SQL; giveBack(): Promise<void> } | null> {
  if (!input.runId) return null;
  const [asking] = await db
    .select({ id: runs.id, correlationId: runs.correlationId, leaseOwner: runs.leaseOwner, status: runs.status })
    .from(runs)
    .where(eq(runs.id, input.runId));
  if (!asking?.leaseOwner || asking.status !== "running") return null;
  const env = getEnv();
  const resolvedSpec = responder.model;
  let held: string | undefined;
  const run = {
    id: asking.id,
    roomId: input.roomId,
    agentId: responder.id,
    correlationId: asking.correlationId,
    leaseOwner: asking.leaseOwner,
    agentName: `${responder.name}'s shadow`,
  };
  return {
    hooks: {
      defaultOutputTokens: env.PARLEY_MAX_OUTPUT_TOKENS,
      reserve: (worst) =>
        reserveSpend(db, run, callWorstCase(resolvedSpec, worst.inputTokens, worst.outputTokens), settings, new Date(), env),
      release: (id) => releaseReservation(db, id),
      held: (id) => {
        held = id;
      },
    },
    settling: (usage) => (held ? sql`with usage as (${usage}) delete from ${spendReservations} where id = ${held}` : usage),
    giveBack: async () => {
      if (held) await releaseReservation(db, held).catch(() => {});
    },
  };
}
