import { and, asc, eq, inArray, ne } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agentNotes, runs } from "@/db/schema";
import { enqueueRun } from "@/lib/agents/enqueue-run";
import { isolatedAgentIds } from "@/lib/brainstorm/stage-context";
import type { Emit } from "@/lib/events/write-room-events";
import { commandRunPrompt, isPending } from "./send-command";

/**
 * Gives participants' messages still waiting for an agent a run of their own, started for the
 * first of their senders, unless a run of the agent (besides `exceptRunId`) is queued or running
 * and will read them. Not while the agent works alone in a brainstorm's divergent thinking: the
 * messages wait until its ideas are released, which follows them up then.
 */
export async function followUpWaitingMessages(
  tx: DbOrTx,
  emit: Emit,
  input: { roomId: string; agentId: string; at: Date; exceptRunId?: string },
): Promise<void> {
  const [waiting] = await tx
    .select({ senderId: agentNotes.senderId, senderName: agentNotes.senderName })
    .from(agentNotes)
    .where(and(eq(agentNotes.agentId, input.agentId), eq(agentNotes.kind, "command"), isPending()))
    .orderBy(asc(agentNotes.createdAt), asc(agentNotes.ordinal))
    .limit(1);
  if (!waiting) return;
  const [other] = await tx
    .select({ id: runs.id })
    .from(runs)
    .where(
      and(
        eq(runs.agentId, input.agentId),
        inArray(runs.status, ["queued", "running"]),
        input.exceptRunId ? ne(runs.id, input.exceptRunId) : undefined,
      ),
    )
    .limit(1);
  if (other) return;
  if ((await isolatedAgentIds(tx, input.roomId)).has(input.agentId)) return;
  const sender = { id: waiting.senderId ?? "someone", name: waiting.senderName ?? "Someone" };
  await enqueueRun(tx, emit, {
    roomId: input.roomId,
    agentId: input.agentId,
    trigger: "command",
    requestedBy: sender,
    prompt: commandRunPrompt(sender.name),
    at: input.at,
  });
}
