/** Tools that put a question or a request to teammates themselves: the words of a step that called one go with it. */
const ASKING_TOOLS: ReadonlySet<string> = new Set(["request_agent", "request_help", "ask_others"]);

/**
 * What a run said in its steps, newest first: each step's text, but none of a step that asked
 * teammates through a tool (its question or request is on its way already).
 */
export function spokenSteps(transcript: unknown[]): string[] {
  const said: string[] = [];
  for (const entry of transcript as ({ role?: unknown; text?: unknown; toolCalls?: unknown } | null)[]) {
    if (entry?.role !== "assistant" || typeof entry.text !== "string" || !entry.text.trim()) continue;
    const calls = Array.isArray(entry.toolCalls) ? (entry.toolCalls as ({ name?: unknown } | null)[]) : [];
    if (calls.some((call) => typeof call?.name === "string" && ASKING_TOOLS.has(call.name))) continue;
    said.unshift(entry.text.trim());
  }
  return said;
}
