import { describe, expect, it } from "vitest";
import { describePromptSummary } from "./admin-format";

describe("describePromptSummary", () => {
  it("says how big the prompt was and what was new in it", () => {
    expect(
      describePromptSummary({
        messageCount: 2,
        characters: 9812,
        tokens: 2453,
        added: { opening: true, toolResults: 0, messages: 0, notes: 0 },
      }),
    ).toBe("2 messages · 9,812 characters (~2.5K tokens) · new: the opening (task and room)");
    expect(
      describePromptSummary({
        messageCount: 5,
        characters: 12_000,
        tokens: 3000,
        added: { opening: false, toolResults: 2, messages: 1, notes: 3 },
      }),
    ).toBe("5 messages · 12,000 characters (~3K tokens) · new: 2 tool results, 1 message, 3 notes");
    expect(
      describePromptSummary({
        messageCount: 1,
        characters: 1,
        tokens: 1,
        added: { opening: false, toolResults: 0, messages: 0, notes: 0 },
      }),
    ).toBe("1 message · 1 character (~1 token) · new: nothing");
  });
});
