import { generateText } from "ai";
import { and, desc, eq, inArray } from "drizzle-orm";
import type { Db } from "@/db";
import { type Agent, rooms, runs } from "@/db/schema";
import type { ModelCallPolicy } from "@/lib/agents/run-context";
import { MODEL_CALL_TIMEOUT_MS, RETRY_DELAYS_MS, type RetryNotice, withVisibleRetries } from "@/lib/agents/visible-retries";
import { usageFigures } from "@/lib/models/pricing";
import type { ModelResolver } from "@/lib/models/registry";
import { PROMPT_SECTIONS_KEY } from "@/lib/agents/prompt-sections";
import { type ResponseDepth, SHADOW_SECTIONS_KEY, buildShadowPrompt } from "./shadow-prompt";
import { generationSettings } from "@/lib/models/generation-settings";
import { type ReservationHooks, withSpendReservations } from "@/lib/agents/reserve-calls";
import { getEnv } from "@/lib/env";
import { templateInstructions } from "@/lib/rooms/templates";

export interface ShadowAnswer {
  content: string;
  durationMs: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

const HISTORY_RUNS = 3;

/**
 * Answers a broadcast as the responder's shadow: the responder's model, persona and full
 * recent conversation, plus the text it is streaming right now, with no tools. The
 * responder's own run is not touched. Its model call is retried and timed out as a run's
 * calls are, each retry announced first (`onRetry`).
 */
export async function respondAsShadow(
  deps: {
    db: Db;
    resolveModel: ModelResolver;
    modelCallPolicy?: ModelCallPolicy;
    /** Reserves the call's worst case against the budgets before it is made (the asking run's calls do). */
    reservations?: ReservationHooks;
  },
  input: {
    responder: Agent;
    askerName: string;
    question: string;
    /** The answers the asker offers, if any. */
    options?: string[];
    depth: ResponseDepth;
    signal: AbortSignal;
    seed?: number;
    onRetry?: (notice: RetryNotice) => Promise<void>;
  },
): Promise<ShadowAnswer> {
  const started = performance.now();
  const [recent, [room]] = await Promise.all([
    deps.db
      .select({ prompt: runs.prompt, transcript: runs.transcript, status: runs.status, streamingText: runs.streamingText })
      .from(runs)
      .where(and(eq(runs.agentId, input.responder.id), inArray(runs.status, ["running", "succeeded", "failed", "cancelled"])))
      .orderBy(desc(runs.createdAt))
      .limit(HISTORY_RUNS),
    deps.db.select({ template: rooms.template }).from(rooms).where(eq(rooms.id, input.responder.roomId)),
  ]);
  const current = recent.find((run) => run.status === "running");
  const { system, messages, sections } = buildShadowPrompt({
    agent: input.responder,
    words: templateInstructions(room?.template ?? ""),
    askerName: input.askerName,
    question: input.question,
    options: input.options,
    depth: input.depth,
    history: recent.reverse(),
    currentText: current?.streamingText ?? "",
  });
  // The asker may have stopped while the history was read: its shadow then asks the model nothing.
  input.signal.throwIfAborted();
  const resolved = deps.resolveModel(input.responder.model, input.responder.modelOptions);
  const retried = withVisibleRetries(resolved.model, {
    delays: deps.modelCallPolicy?.retryDelaysMs ?? RETRY_DELAYS_MS,
    timeoutMs: deps.modelCallPolicy?.timeoutMs ?? MODEL_CALL_TIMEOUT_MS,
    onRetry: input.onRetry ?? (async () => {}),
  });
  const result = await generateText({
    model: deps.reservations ? withSpendReservations(retried, deps.reservations) : retried,
    system,
    messages,
    // The prompt as data, for the offline model; a provider reads only its own namespace.
    providerOptions: { [PROMPT_SECTIONS_KEY]: { [SHADOW_SECTIONS_KEY]: sections } },
    abortSignal: input.signal,
    // Retries are made by the model itself (`withVisibleRetries`), each announced in the question's thread.
    maxRetries: 0,
    // The responder's own generation settings, as in its runs.
    seed: input.seed,
    // Held to an output limit, as a run's calls are: what it could spend is reserved first.
    maxOutputTokens: getEnv().PARLEY_MAX_OUTPUT_TOKENS,
    ...generationSettings(input.responder.modelOptions),
  });
  return {
    content: result.text.trim() || "(no answer)",
    durationMs: Math.round(performance.now() - started),
    ...usageFigures(resolved.spec, result.usage),
  };
}
