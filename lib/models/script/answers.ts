// A question's answer read back in a plan's later steps: shared by the asking step and the
// personas that act on what they were told.
import type { PlanContext } from "./plan";

export interface Answer {
  by: string;
  text: string;
}

/** The answer this run got to its question, if any: a person's or a teammate's. */
export function answerFrom(context: PlanContext): Answer | null {
  const call = context.past("ask");
  if (!call || call.failed) return null;
  // A person's answer given now, or their earlier answer to the same question (status `reused`): either is theirs.
  const first = (call.output as { responses?: { responder_name?: string; responder_id?: string; content: string }[] }).responses?.[0];
  return first ? { by: first.responder_name ?? first.responder_id ?? "someone", text: first.content } : null;
}

export function answerWords(answer: Answer | null): string[] {
  return answer
    ? answer.text
        .toLowerCase()
        .split(/\W+/)
        .filter((word) => word.length > 3)
    : [];
}
