import type { WorkflowModule } from "@/lib/agents/workflow-registry";
import { advanceBrainstorm } from "./advance-brainstorm";
import {
  heldBackWork,
  isolatedAgentIds,
  refuseAskingWhileAlone,
  refuseChangingOthersNodesWhileAlone,
  refuseWhileAlone,
  shownToAlone,
  stagePromptContext,
} from "./stage-context";
import { BRAINSTORM_AUTHOR } from "./lanes";
import { brainstormTrace } from "./brainstorm-trace";
import { sweepStageLimits } from "./sweep-stage-limits";
import { createBrainstormTools } from "./tools";

/**
 * What a brainstorm adds to the agent engine: a stage run's submit tool (its only tool besides the
 * team-memory ones: the process, not the agent, decides who works next), and divergent thinkers working alone.
 */
export const brainstormModule: WorkflowModule = {
  name: "brainstorm",
  tools: (active) => (active.run.purpose?.kind === "brainstorm" ? { tools: createBrainstormTools(active), only: true } : null),
  sweep: (db) => sweepStageLimits(db),
  runEnded: { brainstorm: (tx, emit, run, _actor, outcome) => advanceBrainstorm(tx, emit, run, outcome.at) },
  workingAlone: {
    isolatedAgentIds,
    refuseWhileAlone,
    refuseAskingWhileAlone,
    refuseChangingOthersNodesWhileAlone,
    heldBackWork,
    shownToAlone,
  },
  promptContext: stagePromptContext,
  requesters: { [BRAINSTORM_AUTHOR.id]: "the brainstorm's process" },
  trace: brainstormTrace,
};
