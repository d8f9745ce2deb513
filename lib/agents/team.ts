import type { Db } from "@/db";
import type { Agent, Run } from "@/db/schema";
import { type HeldBack, type Shows, type WorkflowPromptContext, type WorkingAlone, registeredWorkflows } from "./workflow-registry";

/**
 * The one place that decides whether an agent works alone (a brainstorm's divergent thinkers,
 * say) and what that keeps from whom: the engine asks here, and here asks the workflows.
 */

function workingAlone(): WorkingAlone[] {
  return registeredWorkflows().flatMap((module) => (module.workingAlone ? [module.workingAlone] : []));
}

/** Whom a run may reach and name, and whether its agent works alone. */
interface RunTeam {
  /** The room's agents less those working alone; only the agent itself when it is one of them. */
  members: Agent[];
  isolated: boolean;
}

async function isolatedAgentIds(db: Db, roomId: string): Promise<Set<string>> {
  const sets = await Promise.all(workingAlone().map((rules) => rules.isolatedAgentIds(db, roomId)));
  return new Set(sets.flatMap((set) => [...set]));
}

/** Read once per run, then applied to the room's agents as the run loads them. */
export async function teamOf(db: Db, run: Pick<Run, "roomId">): Promise<(everyone: Agent[], agent: Agent) => RunTeam> {
  const alone = await isolatedAgentIds(db, run.roomId);
  return (everyone, agent) =>
    alone.has(agent.id)
      ? { members: [agent], isolated: true }
      : { members: everyone.filter((member) => !alone.has(member.id)), isolated: false };
}

export async function refuseWhileAlone(db: Db, roomId: string, agent: Pick<Agent, "id" | "name">): Promise<void> {
  for (const rules of workingAlone()) await rules.refuseWhileAlone(db, roomId, agent);
}

export async function refuseAskingWhileAlone(
  db: Db,
  roomId: string,
  asker: Pick<Agent, "id">,
  target: Pick<Agent, "id" | "name">,
): Promise<void> {
  for (const rules of workingAlone()) await rules.refuseAskingWhileAlone(db, roomId, asker, target);
}

export async function refuseChangingOthersNodesWhileAlone(
  db: Db,
  roomId: string,
  agent: Pick<Agent, "id" | "persona">,
  nodeId: string,
): Promise<void> {
  for (const rules of workingAlone()) await rules.refuseChangingOthersNodesWhileAlone(db, roomId, agent, nodeId);
}

export async function heldBackWork(db: Db, roomId: string): Promise<HeldBack | null> {
  for (const rules of workingAlone()) {
    const held = await rules.heldBackWork(db, roomId);
    if (held) return held;
  }
  return null;
}

export function isHeldBack(held: HeldBack | null, authorId: string | null, createdAt: Date): boolean {
  return !!held && authorId !== null && held.agentIds.has(authorId) && createdAt.getTime() >= held.since.getTime();
}

/** What an agent working alone may see of the room: what every workflow that keeps it alone lets it see. */
export async function shownToAlone(db: Db, roomId: string, agentId: string): Promise<Shows> {
  const rules = await Promise.all(workingAlone().map((each) => each.shownToAlone(db, roomId, agentId)));
  return (item) => rules.every((shows) => shows(item));
}

/** What the workflow whose run this is adds to its prompt; null for a run no workflow owns. */
export async function workflowPromptContext(
  db: Db,
  input: { run: Run; agent: Agent; team: Agent[] },
): Promise<WorkflowPromptContext | null> {
  for (const module of registeredWorkflows()) {
    const context = await module.promptContext?.(db, input);
    if (context) return context;
  }
  return null;
}

/** How a run's `requestedBy` reads when a workflow started it; null for anyone else. */
export function workflowRequesterName(requestedBy: string): string | null {
  for (const module of registeredWorkflows()) {
    const name = module.requesters?.[requestedBy];
    if (name !== undefined) return name;
  }
  return null;
}
