import { z } from "zod";
import { brainstormTaskSchema } from "@/lib/brainstorm/task-data";
import { buildReviewTaskSchema } from "@/lib/build-review/task-data";
import { dialogueTaskSchema } from "@/lib/dialogue/task-data";
import { BRAINSTORM_STAGES } from "@/lib/protocol/brainstorm";

const workflowTaskSchema = z.union([buildReviewTaskSchema, dialogueTaskSchema, brainstormTaskSchema]);

/** What a workflow asked of the run, as the offline model reads it. */
export type WorkflowTask = z.infer<typeof workflowTaskSchema>;

/** The run's workflow task, when the data handed over is one this model knows; null otherwise. */
export function workflowTaskOf(data: unknown): WorkflowTask | null {
  const parsed = workflowTaskSchema.safeParse(data);
  return parsed.success ? parsed.data : null;
}

const after = (text: string, pattern: RegExp) => text.match(pattern)?.[1]?.trim() ?? null;

/**
 * The workflow task of a run queued before runs kept it as data, read from the words its
 * workflow wrote then: such a run may still be opened, or resumed from its saved opening, after
 * an upgrade. Runs queued since carry the data, and their words are never read; these patterns
 * follow the words as they were and need not follow any rewording.
 */
export function olderWorkflowTask(text: string): WorkflowTask | null {
  const task = after(text, /^Task: (.+)$/m) ?? "the task";
  const brief = after(text, /^Brief(?: from the Architect)?:\n([\s\S]*?)(?:\n\n|$)/m) ?? "";
  if (/## Build review: write the brief/.test(text)) return { workflow: "build-review", step: "brief", task };
  if (/## Build review: get ready to code/.test(text)) return { workflow: "build-review", step: "ready", task, brief };
  const code = text.match(/## Build review: write the code \(version (\d+), round (\d+) of (\d+)\)/);
  if (code) {
    const [version, round, maxRounds] = code.slice(1).map(Number) as [number, number, number];
    return { workflow: "build-review", step: "code", task, brief, version, round, maxRounds, issues: [], notes: [] };
  }
  const review = text.match(/## Build review: review version (\d+) \(round (\d+) of (\d+)\)/);
  if (review) {
    const [version, round, maxRounds] = review.slice(1).map(Number) as [number, number, number];
    const written = after(text, /^Code \(version \d+\):\n```\n([\s\S]*?)\n```/m) ?? "";
    return { workflow: "build-review", step: "review", task, brief, version, round, maxRounds, code: written, notes: [] };
  }
  const turn = text.match(/## Dialogue with (.+?) \(round (\d+) of (\d+)\): (answer|reply)/);
  if (turn) {
    const [, other, round, maxRounds, kind] = turn as unknown as [string, string, string, string, "answer" | "reply"];
    const numbers = { with: other, round: Number(round), maxRounds: Number(maxRounds), earlier: [] };
    return kind === "answer"
      ? {
          workflow: "dialogue",
          turn: "answer",
          ...numbers,
          topic: after(text, /asks: (.+)$/m) ?? "",
          followUp: after(text, /replied: (.+)$/m),
        }
      : {
          workflow: "dialogue",
          turn: "reply",
          ...numbers,
          topic: after(text, /^You asked: (.+)$/m) ?? "",
          answer: after(text, / answered: (.+)$/m) ?? "",
        };
  }
  const stage = text.match(/^## Brainstorm stage (\d+) of \d+: (.+)$/m);
  const definition = stage ? BRAINSTORM_STAGES.find((each) => each.number === Number(stage[1])) : undefined;
  if (!stage || !definition) return null;
  return {
    workflow: "brainstorm",
    stage: definition.key,
    number: Number(stage[1]),
    name: stage[2]!.trim(),
    problem: after(text, /^Problem: (.+)$/m) ?? "the problem",
    persona: after(text, /^Your part \(persona: ([a-z0-9-]+)\)/m) ?? "",
    shortfall: after(text, /^You are asked again because the stage fell short: (.+)$/m),
    again: after(text, /^This stage runs again: (.+)$/m),
    focus: after(text, /^Go deeper on candidate (\S+) only/m),
    redirect: after(text, /^The people in the room sent the ranking back with this comment: "(.+)"\./m),
  };
}
