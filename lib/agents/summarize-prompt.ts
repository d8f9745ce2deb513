import type { ModelMessage } from "ai";
import type { ShownNote } from "@/db/schema";
import type { PromptSummary } from "@/lib/protocol";

/** Notes that are messages for the agent, as opposed to notes for its awareness (see `ShownNote`). */
const MESSAGE_KINDS = new Set<ShownNote["kind"]>(["command", "help"]);

/** The characters of one part of a message as the model reads it: its text, or a tool call's arguments or result as JSON. */
function partLength(part: unknown): number {
  if (typeof part !== "object" || part === null) return 0;
  const shaped = part as { type?: unknown; text?: unknown; input?: unknown; output?: unknown };
  if (typeof shaped.text === "string") return shaped.text.length;
  if (shaped.type === "tool-call") return JSON.stringify(shaped.input ?? null).length;
  if (shaped.type === "tool-result") return JSON.stringify(shaped.output ?? null).length;
  return 0;
}

function messageLength(message: ModelMessage): number {
  const { content } = message;
  if (typeof content === "string") return content.length;
  return (content as unknown[]).reduce<number>((total, part) => total + partLength(part), 0);
}

/** How many tool results the messages of a step carry back to the model. */
function toolResultsIn(messages: ModelMessage[]): number {
  return messages
    .filter((message) => message.role === "tool")
    .reduce((total, message) => total + (message.content as { type: string }[]).filter((part) => part.type === "tool-result").length, 0);
}

/**
 * What the model is given for a step, in brief, for the dashboard's view of the run: how many
 * messages and characters (and about how many tokens) it reads, and what is new since the step
 * before — the opening message on a run's first step, the results of the tools the step before
 * called, and the messages and notes that arrived since. Cheap: it only measures what is sent.
 */
export function summarizePrompt(input: {
  system: string;
  /** The conversation as sent, without the system prompt. */
  messages: ModelMessage[];
  /** What the step before added to the conversation (its model turn and its tools' results); none for a run's first step. */
  previous: ModelMessage[] | null;
  /** Notes shown to the model for the first time in this step. */
  arrived: ShownNote[];
}): PromptSummary {
  const characters = input.system.length + input.messages.reduce((total, message) => total + messageLength(message), 0);
  const messages = input.arrived.filter((note) => MESSAGE_KINDS.has(note.kind)).length;
  return {
    messageCount: input.messages.length + (input.system ? 1 : 0),
    characters,
    // Counted as `estimateTokens` counts the context it budgets: about four characters a token.
    tokens: Math.ceil(characters / 4),
    added: {
      opening: input.previous === null,
      toolResults: input.previous ? toolResultsIn(input.previous) : 0,
      messages,
      notes: input.arrived.length - messages,
    },
  };
}
