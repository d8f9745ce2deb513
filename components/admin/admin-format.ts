import type { PromptSummary } from "@/lib/protocol";

/** How the dashboard writes numbers, money, durations and times. */

const compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });

/** 950, 12.3K, 4.1M. */
export function formatTokens(tokens: number): string {
  return compact.format(tokens);
}

/** $0.0042 below ten cents, $1.23 above. */
export function formatDollars(amount: number): string {
  if (amount === 0) return "$0";
  return `$${amount.toFixed(amount >= 0.1 ? 2 : 4)}`;
}

/** 850 ms, 4.2 s, 3 min 5 s, 2 h 10 min. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${Math.floor(ms / 3_600_000)} h ${Math.round((ms % 3_600_000) / 60_000)} min`;
}

/** 12 s ago, 5 min ago, 3 h ago, 4 d ago; "in 2 s" for a time still to come. */
export function formatAgo(iso: string, now: number = Date.now()): string {
  const delta = now - Date.parse(iso);
  const ahead = delta < 0;
  const span = Math.abs(delta);
  const text =
    span < 60_000
      ? `${Math.max(0, Math.round(span / 1000))} s`
      : span < 3_600_000
        ? `${Math.round(span / 60_000)} min`
        : span < 86_400_000
          ? `${Math.round(span / 3_600_000)} h`
          : `${Math.round(span / 86_400_000)} d`;
  return ahead ? `in ${text}` : `${text} ago`;
}

/** A time as the viewer's clock shows it: 14:03:27, with the date when it is not today. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  const time = date.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  return date.toDateString() === new Date().toDateString()
    ? time
    : `${date.toLocaleDateString("en-GB", { day: "numeric", month: "short" })} ${time}`;
}

/** What a run's status is called on the dashboard. */
export const RUN_STATUS_LABEL = {
  queued: "queued",
  running: "running",
  succeeded: "finished",
  failed: "failed",
  cancelled: "cancelled",
} as const;

function counted(count: number, one: string, many: string = `${one}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`;
}

/**
 * What a step's model was given, in words: "3 messages · 9,812 characters (~2,453 tokens) · new:
 * 2 tool results, 1 message". The opening (task and room) is what a run's first step is given new.
 */
export function describePromptSummary(prompt: PromptSummary): string {
  const { added } = prompt;
  const news = [
    added.opening ? "the opening (task and room)" : null,
    added.toolResults ? counted(added.toolResults, "tool result") : null,
    added.messages ? counted(added.messages, "message") : null,
    added.notes ? counted(added.notes, "note") : null,
  ].filter((part): part is string => part !== null);
  const size = `${counted(prompt.messageCount, "message")} · ${counted(prompt.characters, "character")} (~${formatTokens(prompt.tokens)} ${prompt.tokens === 1 ? "token" : "tokens"})`;
  return `${size} · new: ${news.length ? news.join(", ") : "nothing"}`;
}
