import { and, eq, inArray, isNull } from "drizzle-orm";
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
 * As divergent thinking begins: people's messages still waiting for an ideator are held until
 * its ideas are released (no run of it takes them meanwhile, see `takeNotes`), so a run queued to
 * act on them, and not started yet, is cancelled, saying why; the messages stay waiting.
 */
export async function holdMessagesForIdeators(write: Write, roomId: string): Promise<void> {
  for (const ideator of await ideatorsOf(write, roomId)) {
    const queued = await write.tx
      .select({ id: runs.id })
      .from(runs)
      .where(and(eq(runs.agentId, ideator.id), eq(runs.status, "queued"), eq(runs.trigger, "command"), isNull(runs.startedAt)));
    for (const run of queued) {
      await cancelQueuedRun(
        write.tx,
        write.emit,
        write.at,
        run.id,
        BRAINSTORM_AUTHOR,
        `Not started: ${ideator.name} is working alone in the brainstorm's divergent thinking (stage 1), where nothing from outside may shape its ideas. The messages this run was to act on wait, and reach ${ideator.name} in a run of their own once the ideas are released.`,
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
