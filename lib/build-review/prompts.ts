// What each step of a build review asks of its agent, in words and as data: both are made here,
// from the same values, so what the words say and what the data holds agree.
import type { BuildReview, ReviewIssue } from "@/db/schema";
import type { BuildReviewTask } from "./task-data";

/** A step's task: its words (the run's prompt) and the same as data. */
interface ReviewStepTask {
  prompt: string;
  taskData: BuildReviewTask;
}

export function briefTask(task: string): ReviewStepTask {
  return {
    prompt: [
      "## Build review: write the brief",
      `Task: ${task}`,
      "Write a short brief for the Coder: the goal, the inputs and outputs, the edge cases to handle, and how it will be judged. " +
        'Put it on the canvas (create_node, kind "brief"), then end with the brief itself as your final message.',
    ].join("\n"),
    taskData: { workflow: "build-review", step: "brief", task },
  };
}

function issueLines(issues: ReviewIssue[]): string {
  return issues.map((issue) => `- [${issue.severity}] ${issue.text}`).join("\n");
}

/** The Coder's step between the brief and its first version: it says it is ready, or asks its one question. */
export function readyTask(review: Pick<BuildReview, "task" | "brief">): ReviewStepTask {
  return {
    prompt: [
      "## Build review: get ready to code",
      `Task: ${review.task}`,
      `Brief from the Architect:\n${review.brief ?? "(none)"}`,
      "Read the brief; do not write code yet. If you can write the code from it, say in one or two sentences that you are ready " +
        "and how you will go about it: that is your final message. If something essential is unclear, ask the Architect one " +
        'question instead with ask_teammate (without tools: address the Architect by name and end your question with "?"), ' +
        "and finish your turn; you write the code once the dialogue ends. You may ask once.",
    ].join("\n\n"),
    taskData: { workflow: "build-review", step: "ready", task: review.task, brief: review.brief ?? "" },
  };
}

export function codeTask(
  review: Pick<BuildReview, "task" | "brief" | "codeVersion" | "round" | "maxRounds" | "lastVerdict">,
  notes: string[] = [],
): ReviewStepTask {
  const version = review.codeVersion + 1;
  const issues = review.lastVerdict?.issues ?? [];
  const lines = [
    `## Build review: write the code (version ${version}, round ${review.round} of ${review.maxRounds})`,
    `Task: ${review.task}`,
    `Brief from the Architect:\n${review.brief ?? "(none)"}`,
  ];
  if (review.lastVerdict && issues.length) {
    lines.push(`The Reviewer's issues with version ${review.lastVerdict.version}:\n${issueLines(issues)}`);
  }
  if (notes.length) lines.push(`From your dialogue:\n${notes.map((note) => `- ${note}`).join("\n")}`);
  lines.push(
    "Write the complete code with submit_code (one call, the whole file). " +
      (version > 1 ? "Then say in one sentence what changed." : "Then say in one sentence what it does."),
  );
  return {
    prompt: lines.join("\n\n"),
    taskData: {
      workflow: "build-review",
      step: "code",
      task: review.task,
      brief: review.brief ?? "",
      version,
      round: review.round,
      maxRounds: review.maxRounds,
      issues: issues.map((issue) => ({ severity: issue.severity, text: issue.text })),
      notes,
    },
  };
}

export function reviewTask(
  review: Pick<BuildReview, "task" | "brief" | "codeVersion" | "round" | "maxRounds">,
  code: string,
  notes: string[] = [],
): ReviewStepTask {
  return {
    prompt: [
      `## Build review: review version ${review.codeVersion} (round ${review.round} of ${review.maxRounds})`,
      `Task: ${review.task}`,
      `Brief:\n${review.brief ?? "(none)"}`,
      `Code (version ${review.codeVersion}):\n\`\`\`\n${code}\n\`\`\``,
      ...(notes.length ? [`From the Coder's dialogue about this version:\n${notes.map((note) => `- ${note}`).join("\n")}`] : []),
      "Review it and submit your verdict with submit_verdict: approve, or changes with the issues (blocker, major or minor) " +
        "and any open questions for the Coder. Without tools, end with a line `VERDICT: APPROVE` or `VERDICT: CHANGES`.",
    ].join("\n\n"),
    taskData: {
      workflow: "build-review",
      step: "review",
      task: review.task,
      brief: review.brief ?? "",
      version: review.codeVersion,
      round: review.round,
      maxRounds: review.maxRounds,
      code,
      notes,
    },
  };
}
