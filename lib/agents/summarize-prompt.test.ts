import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { summarizePrompt } from "./summarize-prompt";

const opening: ModelMessage = { role: "user", content: "Write about rain." };
const turn: ModelMessage[] = [
  {
    role: "assistant",
    content: [
      { type: "text", text: "A line." },
      { type: "tool-call", toolCallId: "a", toolName: "create_node", input: { text: "Rain" } },
      { type: "tool-call", toolCallId: "b", toolName: "create_node", input: { text: "Glass" } },
    ],
  },
  {
    role: "tool",
    content: [
      { type: "tool-result", toolCallId: "a", toolName: "create_node", output: { type: "json", value: { id: "n1" } } },
      { type: "tool-result", toolCallId: "b", toolName: "create_node", output: { type: "json", value: { id: "n2" } } },
    ],
  },
];

describe("summarizePrompt", () => {
  it("gives a run's first step the opening as new, counting the system prompt as a message", () => {
    const summary = summarizePrompt({ system: "You are Songwriter.", messages: [opening], previous: null, arrived: [] });
    expect(summary).toEqual({
      messageCount: 2,
      characters: "You are Songwriter.".length + "Write about rain.".length,
      tokens: Math.ceil(("You are Songwriter.".length + "Write about rain.".length) / 4),
      added: { opening: true, toolResults: 0, messages: 0, notes: 0 },
    });
  });

  it("counts what is new since the step before: its tools' results, messages for the agent and other notes", () => {
    const notes: ModelMessage = { role: "user", content: "[note] Ada says: make it rain harder\n[note] Your shadow answered Storyteller" };
    const summary = summarizePrompt({
      system: "You are Songwriter.",
      messages: [opening, ...turn, notes],
      previous: turn,
      arrived: [
        { id: "1", text: "Ada says: make it rain harder", kind: "command" },
        { id: "2", text: "Storyteller asked for help", kind: "help" },
        { id: "3", text: "Your shadow answered Storyteller" },
      ],
    });
    expect(summary.messageCount).toBe(5);
    expect(summary.added).toEqual({ opening: false, toolResults: 2, messages: 2, notes: 1 });
    // Tool calls' arguments and results count as the JSON the model reads.
    const expected =
      "You are Songwriter.".length +
      "Write about rain.".length +
      "A line.".length +
      JSON.stringify({ text: "Rain" }).length +
      JSON.stringify({ text: "Glass" }).length +
      2 * JSON.stringify({ type: "json", value: { id: "n1" } }).length +
      (notes.content as string).length;
    expect(summary.characters).toBe(expected);
  });

  it("finds nothing new after a step that called no tool and before which nothing arrived", () => {
    const answered: ModelMessage[] = [{ role: "assistant", content: [{ type: "text", text: "Done." }] }];
    const summary = summarizePrompt({ system: "", messages: [opening, ...answered], previous: answered, arrived: [] });
    expect(summary.messageCount).toBe(2);
    expect(summary.added).toEqual({ opening: false, toolResults: 0, messages: 0, notes: 0 });
  });
});
