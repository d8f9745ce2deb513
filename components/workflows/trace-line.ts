import { type DescribeContext, describeEvent } from "@/components/feed/describe-event";
import type { StoredEvent } from "@/lib/protocol";

const QUOTE = 160;

function quote(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return `“${line.length > QUOTE ? `${line.slice(0, QUOTE - 1)}…` : line}”`;
}

const CLOSED = {
  complete: "every answer is in",
  timeout: "the time to answer ran out",
  deferred: "put off until later",
  reused: "an earlier answer was reused",
  skipped: "skipped",
  cancelled: "cancelled",
} as const;

/**
 * What one message of a workflow says in its trace. The feed leaves a question's answers and a
 * dialogue's lines to their threads; a trace has no thread, so it says them itself, with their text.
 */
export function traceLine(event: StoredEvent, context: DescribeContext): string {
  switch (event.type) {
    case "broadcast.response": {
      const { response } = event.payload;
      return `answered ${quote(response.content)}`;
    }
    case "broadcast.opened":
      return "opened the question for answers";
    case "broadcast.closed":
      return `closed the question: ${CLOSED[event.payload.status]} (${event.payload.responses} answer${event.payload.responses === 1 ? "" : "s"})`;
    case "dialogue.message":
      return `said ${quote(event.payload.text)}`;
    case "dialogue.replied":
      return event.payload.satisfied ? "was satisfied with the answer" : `still asks ${quote(event.payload.remaining ?? "")}`;
    case "dialogue.closed":
      return `closed the dialogue after ${event.payload.rounds} round${event.payload.rounds === 1 ? "" : "s"}`;
    default: {
      const line = describeEvent(event, context);
      const said = line.message ? ` ${quote(line.message)}` : "";
      return `${line.text || line.chips?.join(", ") || "took a step"}${said}`;
    }
  }
}
