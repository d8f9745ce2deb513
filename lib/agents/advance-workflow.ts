import type { DbOrTx } from "@/db";
import type { Run } from "@/db/schema";
import type { Actor, Emit } from "@/lib/events/write-room-events";
import type { TurnOutcome } from "./turn-outcome";
import { registeredWorkflows } from "./workflow-registry";

/**
 * Moves a run's workflow on when the run ends, in the write that ends it: the workflow that owns
 * the run's purpose says what follows (a build review's next step, a dialogue's next turn, a
 * brainstorm's stage measured and ended); a run that is no workflow's step goes to every
 * workflow that acts on those (a dialogue its words ask for).
 */
export async function advanceWorkflow(tx: DbOrTx, emit: Emit, run: Run, actor: Actor, outcome: TurnOutcome): Promise<void> {
  const modules = registeredWorkflows();
  const purpose = run.purpose;
  if (purpose) {
    const owner = modules.find((module) => module.runEnded?.[purpose.kind]);
    await owner?.runEnded?.[purpose.kind]?.(tx, emit, run, actor, outcome);
    return;
  }
  for (const module of modules) await module.freeRunEnded?.(tx, emit, run, actor, outcome);
}
