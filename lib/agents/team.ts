import type { Db } from "@/db";
import type { Agent, Run } from "@/db/schema";
import { isolatedAgentIds } from "@/lib/brainstorm/stage-context";

/** Whom a run may reach and name, and whether its agent works alone. */
export interface RunTeam {
  /** The room's agents less those working alone; only the agent itself when it is one of them. */
  members: Agent[];
  isolated: boolean;
}

/**
 * The one place that decides whether an agent of a run works alone: read once per run, then
 * applied to the room's agents as the run loads them.
 */
export async function teamOf(db: Db, run: Pick<Run, "roomId">): Promise<(everyone: Agent[], agent: Agent) => RunTeam> {
  const alone = await isolatedAgentIds(db, run.roomId);
  return (everyone, agent) =>
    alone.has(agent.id)
      ? { members: [agent], isolated: true }
      : { members: everyone.filter((member) => !alone.has(member.id)), isolated: false };
}
