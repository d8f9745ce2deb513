import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { agents, runs } from "@/db/schema";
import { cancelQueuedRun } from "@/lib/agents/cancel-run";
import { followUpWaitingMessages } from "@/lib/commands/follow-up-waiting-messages";
import { stageDefinition } from "@/lib/protocol/brainstorm";
import type { BrainstormStep } from "./advance-brainstorm";
import { BRAINSTORM_AUTHOR } from "./lanes";

type Write = Pick<BrainstormStep, "tx" | "emit" | "at">;

function ideatorsOf(write: Write, roomId: string) {
  return write.tx
    .select({ id: agents.id, name: agents.name })
    .from(agents)
    .where(and(eq(agents.roomId, roomId), inArray(agents.persona, stageDefinition("divergent").personas)));
}

/**
 * As divergent thinking begins, nothing from outside may reach its ideators any more, so their
 * runs queued by others and not started yet are cancelled, saying why: those queued to act on
 * people's messages (the messages are held until the ideas are released, and no run of the
 * ideator takes them meanwhile, see `takeNotes`), and those a teammate's request, help request
 * or question queued (its request is cancelled, its dialogue ends; it may be asked again once
 * the stage ends). The stage's own runs are not touched.
 */
export async function holdBackFromIdeators(write: Write, roomId: string): Promise<void> {
  for (const ideator of await ideatorsOf(write, roomId)) {
    const queued = await write.tx
      .select({ id: runs.id, trigger: runs.trigger })
      .from(runs)
      .where(
        and(
          eq(runs.agentId, ideator.id),
          eq(runs.status, "queued"),
          isNull(runs.startedAt),
          sql`coalesce(${runs.purpose}->>'kind', '') <> 'brainstorm'`,
        ),
      );
    const working = `${ideator.name} is working alone in the brainstorm's divergent thinking (stage 1), where nothing from outside may shape its ideas.`;
    for (const run of queued) {
      await cancelQueuedRun(
        write.tx,
        write.emit,
        write.at,
        run.id,
        BRAINSTORM_AUTHOR,
        run.trigger === "command"
          ? `Not started: ${working} The messages this run was to act on wait, and reach ${ideator.name} in a run of their own once the ideas are released.`
          : `Not started: ${working} Ask again once stage 1 has ended.`,
      );
    }
  }
}

/**
 * Once the ideas are released, or the brainstorm is stopped while its ideators work alone: the
 * messages held for them each get a run, as any message still waiting does. An ideator whose run
 * is still ending gets it when that run ends.
 */
export async function followUpHeldMessages(write: Write, roomId: string): Promise<void> {
  for (const ideator of await ideatorsOf(write, roomId)) {
    await followUpWaitingMessages(write.tx, write.emit, { roomId, agentId: ideator.id, at: write.at });
  }
}
