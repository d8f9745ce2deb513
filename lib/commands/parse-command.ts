import { badRequest } from "@/lib/errors";
import { findTeammate, teammateAt } from "@/lib/agents/find-teammate";
import { LIMITS } from "@/lib/protocol";

/** What the command bar understands, besides messages. */
const SLASH_COMMANDS = ["/focus"] as const;

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
  // The whole line counts, `@Name` included, as the bar counts it while it is typed.
  if (text.length > LIMITS.commandText) {
    throw badRequest(`A message may be at most ${LIMITS.commandText} characters, @Name included; this one has ${text.length}.`);
  }
  if (text.startsWith("/")) {
    const [word = "", ...rest] = text.split(/\s+/);
    if (word.toLowerCase() !== "/focus") {
      throw badRequest(`Unknown command ${word}. Commands: ${SLASH_COMMANDS.join(", ")} (or @Name followed by a message).`);
    }
    const name = rest.join(" ").replace(/^@/, "").trim();
    if (!name || name.toLowerCase() === "auto") return { kind: "focus", agentId: null };
    const agent = findTeammate(agents, name);
    if (!agent) throw badRequest(`There is no agent "${name}" in this room. Agents: ${roster(agents)}.`);
    return { kind: "focus", agentId: agent.id };
  }
  if (text.startsWith("@")) {
    const rest = text.slice(1);
    const match = teammateAt(rest, agents);
    if (!match) {
      const named = rest.split(/[\s,:]/)[0] ?? "";
      throw badRequest(`There is no agent "${named}" in this room. Agents: ${roster(agents)}.`);
    }
    const message = rest
      .slice(match.end)
      .replace(/^[\s,:;.!?-]+/, "")
      .trim();
    if (!message) throw badRequest(`Say something to ${match.member.name} after the name.`);
    return { kind: "message", agentId: match.member.id, text: message };
  }
  return { kind: "message", agentId: null, text };
}
