import { generateText } from "ai";
import { and, desc, eq, inArray } from "drizzle-orm";
import type { Db } from "@/db";
import { type Agent, runs } from "@/db/schema";
import { usageFigures } from "@/lib/models/pricing";
import type { ModelResolver } from "@/lib/models/registry";
import { type ResponseDepth, buildShadowPrompt } from "./shadow-prompt";

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
 * responder's own run is not touched.
 */
export async function respondAsShadow(
  deps: { db: Db; resolveModel: ModelResolver },
  input: { responder: Agent; askerName: string; question: string; depth: ResponseDepth; signal: AbortSignal; seed?: number },
): Promise<ShadowAnswer> {
  const started = performance.now();
  const recent = await deps.db
    .select({ prompt: runs.prompt, transcript: runs.transcript, status: runs.status, streamingText: runs.streamingText })
    .from(runs)
    .where(and(eq(runs.agentId, input.responder.id), inArray(runs.status, ["running", "succeeded", "failed", "cancelled"])))
    .orderBy(desc(runs.createdAt))
    .limit(HISTORY_RUNS);
  const current = recent.find((run) => run.status === "running");
  const { system, messages } = buildShadowPrompt({
    agent: input.responder,
    askerName: input.askerName,
    question: input.question,
    depth: input.depth,
    history: recent.reverse(),
    currentText: current?.streamingText ?? "",
  });
  // The asker may have stopped while the history was read: its shadow then asks the model nothing.
  input.signal.throwIfAborted();
  const resolved = deps.resolveModel(input.responder.model, input.responder.modelOptions);
  const result = await generateText({
    model: resolved.model,
    system,
    messages,
    abortSignal: input.signal,
    // No silent retries: a shadow that cannot answer says so in the question's thread.
    maxRetries: 0,
    seed: input.seed,
  });
  return {
    content: result.text.trim() || "(no answer)",
    durationMs: Math.round(performance.now() - started),
    ...usageFigures(resolved.spec, result.usage),
  };
}
