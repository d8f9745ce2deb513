import { asc, eq } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "@/db";
import { agents, rooms, runs } from "@/db/schema";
import { notFound } from "@/lib/errors";
import type { AgentDto } from "@/lib/protocol";
import { agentToDto } from "@/lib/rooms/dto";
import { type WorkflowDetail, readWorkflow, workflowMessagesQuerySchema } from "@/lib/workflows/read-workflow";

export const adminWorkflowQuerySchema = workflowMessagesQuerySchema;

export interface AdminWorkflow {
  room: { id: string; title: string };
  /** The room's agents, for the timeline's lanes. */
  agents: AgentDto[];
  workflow: WorkflowDetail;
}

/**
 * A workflow found by its correlation id alone, in whichever room it ran: its room, the room's
 * agents and the workflow as the room's own endpoint reads it (totals, runs, messages in order).
 */
export async function findWorkflow(
  db: Db,
  correlationId: string,
  page: Partial<z.infer<typeof adminWorkflowQuerySchema>> = {},
): Promise<AdminWorkflow> {
  const [found] = await db
    .select({ roomId: runs.roomId, title: rooms.title })
    .from(runs)
    .innerJoin(rooms, eq(rooms.id, runs.roomId))
    .where(eq(runs.correlationId, correlationId))
    .limit(1);
  if (!found) throw notFound(`Workflow ${correlationId}`);
  const [team, workflow] = await Promise.all([
    db.select().from(agents).where(eq(agents.roomId, found.roomId)).orderBy(asc(agents.position)),
    readWorkflow(db, found.roomId, correlationId, page),
  ]);
  return { room: { id: found.roomId, title: found.title }, agents: team.map(agentToDto), workflow };
}
