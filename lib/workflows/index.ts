import { registerWorkflow } from "@/lib/agents/workflow-registry";
import { brainstormModule } from "@/lib/brainstorm/module";
import { buildReviewModule } from "@/lib/build-review/module";
import { dialogueModule } from "@/lib/dialogue/module";

/**
 * The composition root of the workflow templates: each registers what it adds to the agent
 * engine, once, when anything that runs agents is loaded (`lib/runtime.ts`, the test runtime).
 * A new template is one folder and one line here.
 */
registerWorkflow(brainstormModule);
registerWorkflow(buildReviewModule);
registerWorkflow(dialogueModule);
