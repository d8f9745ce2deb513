import { badRequest } from "@/lib/errors";
import { LIMITS } from "@/lib/protocol";

/** What the command bar understands, besides messages. */
export const SLASH_COMMANDS = ["/focus"] as const;

export interface CommandTarget {
  id: string;
  name: string;
  persona: string;
}

export type ParsedCommand =
  /** `/focus Name` (an agent) or `/focus` alone (automatic: null). */
  | { kind: "focus"; agentId: string | null }
  /** A message; `agentId` null when it names nobody and goes to the seat's focus. */
  | { kind: "message"; agentId: string | null; text: string };

/** Names compared without case, spaces, dashes or underscores: "scene painter", "ScenePainter", "scene-painter". */
function compact(text: string): string {
  return text.toLowerCase().replace(/[\s\-_]+/g, "");
}

const BOUNDARY = /[\s,.:;!?]/;

/**
 * The agent named at the start of `text`, by name or persona, the longest match winning
 * ("@Scene Painter" over a "Scene" agent), and where its name ends in `text`. The name must
 * end at a word boundary.
 */
export function matchAgent<T extends CommandTarget>(text: string, agents: T[]): { agent: T; end: number } | null {
  // Each compacted character remembers where it ended in the original text.
  let compacted = "";
  const ends: number[] = [];
  for (let index = 0; index < text.length; index++) {
    const piece = compact(text[index]!);
    if (!piece) continue;
    compacted += piece;
    ends.push(index + 1);
  }
  let best: { agent: T; end: number; length: number } | null = null;
  for (const agent of agents) {
    for (const key of new Set([compact(agent.name), compact(agent.persona)])) {
      if (!key || !compacted.startsWith(key)) continue;
      const end = ends[key.length - 1]!;
      if (end < text.length && !BOUNDARY.test(text[end]!)) continue;
      if (!best || key.length > best.length) best = { agent, end, length: key.length };
    }
  }
  return best && { agent: best.agent, end: best.end };
}

function roster(agents: CommandTarget[]): string {
  return agents.map((agent) => `@${agent.name}`).join(", ");
}

/**
 * Reads what a participant typed in the command bar: `@Name text`, `/focus Name`, `/focus`,
 * or plain text for the focused agent. Bad input is a 400 that says what would work.
 */
export function parseCommand(input: string, agents: CommandTarget[]): ParsedCommand {
  const text = input.trim();
  if (!text) throw badRequest("Type a message for an agent, e.g. @Songwriter try a sea shanty.");
  if (text.length > LIMITS.commandText) {
    throw badRequest(`A message may be at most ${LIMITS.commandText} characters; this one has ${text.length}.`);
  }
  if (text.startsWith("/")) {
    const [word = "", ...rest] = text.split(/\s+/);
    if (word.toLowerCase() !== "/focus") {
      throw badRequest(`Unknown command ${word}. Commands: ${SLASH_COMMANDS.join(", ")} (or @Name followed by a message).`);
    }
    const name = rest.join(" ").replace(/^@/, "").trim();
    if (!name || name.toLowerCase() === "auto") return { kind: "focus", agentId: null };
    const match = matchAgent(name, agents);
    if (!match || name.slice(match.end).trim()) {
      throw badRequest(`There is no agent "${name}" in this room. Agents: ${roster(agents)}.`);
    }
    return { kind: "focus", agentId: match.agent.id };
  }
  if (text.startsWith("@")) {
    const rest = text.slice(1);
    const match = matchAgent(rest, agents);
    if (!match) {
      const named = rest.split(/[\s,:]/)[0] ?? "";
      throw badRequest(`There is no agent "${named}" in this room. Agents: ${roster(agents)}.`);
    }
    const message = rest.slice(match.end).replace(/^[\s,:;.!?-]+/, "").trim();
    if (!message) throw badRequest(`Say something to ${match.agent.name} after the name.`);
    return { kind: "message", agentId: match.agent.id, text: message };
  }
  return { kind: "message", agentId: null, text };
}
