import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { LIMITS } from "@/lib/protocol";
import { teammateAt } from "@/lib/agents/find-teammate";
import { parseCommand } from "./parse-command";

const agents = [
  { id: "a1", name: "Songwriter", persona: "songwriter" },
  { id: "a2", name: "Scene Painter", persona: "scene-painter" },
  { id: "a3", name: "Scene", persona: "scene" },
  { id: "a4", name: "Storyteller", persona: "storyteller" },
];

function failure(input: string): AppError {
  try {
    parseCommand(input, agents);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error(`"${input}" was accepted`);
}

describe("parseCommand", () => {
  it("reads @Name and the message after it", () => {
    expect(parseCommand("@Songwriter try a sea shanty", agents)).toEqual({ kind: "message", agentId: "a1", text: "try a sea shanty" });
  });

  it("matches names and personas without case or spaces, the longest first", () => {
    expect(parseCommand("@scene painter: paint the harbour", agents)).toMatchObject({ agentId: "a2", text: "paint the harbour" });
    expect(parseCommand("@ScenePainter paint", agents)).toMatchObject({ agentId: "a2", text: "paint" });
    expect(parseCommand("@scene-painter, paint", agents)).toMatchObject({ agentId: "a2", text: "paint" });
    expect(parseCommand("@Scene paint", agents)).toMatchObject({ agentId: "a3", text: "paint" });
    expect(parseCommand("@SONGWRITER,go", agents)).toMatchObject({ agentId: "a1", text: "go" });
  });

  it("needs the name to end at a word boundary", () => {
    expect(teammateAt("Songwriters unite", agents)).toBeNull();
    expect(failure("@Songwriters unite").message).toContain('no agent "Songwriters"');
  });

  it("sends plain text to the focused agent", () => {
    expect(parseCommand("  more verses please ", agents)).toEqual({ kind: "message", agentId: null, text: "more verses please" });
  });

  it("reads /focus with a name, and alone as automatic", () => {
    expect(parseCommand("/focus Storyteller", agents)).toEqual({ kind: "focus", agentId: "a4" });
    expect(parseCommand("/focus @scene painter", agents)).toEqual({ kind: "focus", agentId: "a2" });
    expect(parseCommand("/focus", agents)).toEqual({ kind: "focus", agentId: null });
  });

  it("refuses an unknown agent, listing the room's agents", () => {
    const error = failure("@Drummer play louder");
    expect(error.status).toBe(400);
    expect(error.message).toContain('"Drummer"');
    expect(error.message).toContain("@Songwriter, @Scene Painter, @Scene, @Storyteller");
    expect(failure("/focus Drummer").message).toContain("Agents: @Songwriter");
  });

  it("refuses an unknown command, listing the commands", () => {
    const error = failure("/shout hello");
    expect(error.status).toBe(400);
    expect(error.message).toContain("Unknown command /shout");
    expect(error.message).toContain("/focus");
  });

  it("refuses empty and overlong messages", () => {
    expect(failure("   ").status).toBe(400);
    expect(failure("@Songwriter   ").message).toContain("Say something to Songwriter");
    expect(failure(`@Songwriter ${"a".repeat(LIMITS.commandText)}`).message).toContain(`at most ${LIMITS.commandText}`);
  });

  it("counts the whole line towards the 2,000 characters, @Name included, spaces at either end aside", () => {
    expect(LIMITS.commandText).toBe(2000);
    const named = (length: number) => `@Songwriter ${"a".repeat(length - "@Songwriter ".length)}`;
    expect(named(2000)).toHaveLength(2000);
    expect(parseCommand(named(2000), agents)).toMatchObject({ kind: "message", agentId: "a1", text: "a".repeat(1988) });
    expect(parseCommand(`  ${named(2000)}\n`, agents)).toMatchObject({ agentId: "a1" });
    const refused = failure(named(2001));
    expect(refused.status).toBe(400);
    expect(refused.message).toBe("A message may be at most 2000 characters, @Name included; this one has 2001.");
    // A message naming nobody has the same room, all of it its own.
    expect(parseCommand("b".repeat(2000), agents)).toEqual({ kind: "message", agentId: null, text: "b".repeat(2000) });
    expect(failure("b".repeat(2001)).message).toContain("this one has 2001");
  });
});
