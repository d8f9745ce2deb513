import type { WorkflowModule } from "@/lib/agents/workflow-registry";
import { advanceBuildReview } from "./advance";
import { reviewTrace } from "./review-trace";
import { createReviewTools } from "./tools";

/** What a build review adds to the agent engine: the Coder's, the Reviewer's and a dialogue's tools, beside the room's own. */
export const buildReviewModule: WorkflowModule = {
  name: "build-review",
  tools: (active) => ({ tools: createReviewTools(active), only: false }),
  runEnded: { brief: advanceBuildReview, ready: advanceBuildReview, code: advanceBuildReview, review: advanceBuildReview },
  trace: reviewTrace,
};
