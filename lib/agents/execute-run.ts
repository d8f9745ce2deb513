import { APICallError } from "@ai-sdk/provider";
import { type ModelMessage, RetryError, isStepCount, streamText } from "ai";
import { eq, sql } from "drizzle-orm";
import type { Database } from "@/db";
import { type Agent, type Run, agents, rooms, runs } from "@/db/schema";
import { setRequestStatus } from "@/lib/board/post-entry";
import { takeNotes } from "@/lib/broadcast/agent-notes";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import { costOf } from "@/lib/models/pricing";
import { ModelUnavailableError, type ResolvedModel } from "@/lib/models/registry";
import type { ErrorDetails } from "@/lib/protocol";
import type { RoomBus } from "@/lib/realtime/bus";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { buildPrompt } from "./build-prompt";
import { type RunOutcome, finishRun } from "./finish-run";
import { loadPromptContext } from "./load-prompt-context";
import { type ActiveRun, agentAuthor } from "./run-context";
import { createAgentTools } from "./tools";

export interface ExecuteDeps {
  database: Database;
  bus: RoomBus;
  resolveModel: (spec: string) => ResolvedModel;
  now?: () => Date;
  /** How often typed text is flushed to viewers. */
  typingFlushMs?: number;
  /** How often the text being written is saved for shadows on other instances. */
  streamingSaveMs?: number;
  /** Retries of a failed model call inside the SDK (transient provider errors). */
  maxRetries?: number;
}

/** Why a run stopped early: cancelled by someone, its lease taken over, or its worker shutting down. */
export type StopReason = "cancelled" | "lease_lost" | "shutdown";

interface StepRecord {
  step: number;
  text: string;
  toolCalls: { id: string; name: string; input: unknown }[];
  toolResults: { id: string; name: string; output?: unknown; error?: string }[];
}

function errorDetails(error: unknown): ErrorDetails {
  // After its retries the SDK reports the last provider error wrapped in a RetryError.
  if (RetryError.isInstance(error) && error.lastError) return errorDetails(error.lastError);
  if (error instanceof ModelUnavailableError) {
    return { errorType: "model_unavailable", errorMessage: error.message, retryPossible: false };
  }
  if (APICallError.isInstance(error)) {
    return {
      errorType: error.statusCode === 429 ? "rate_limited" : "provider_error",
      errorMessage: `${error.message}${error.statusCode ? ` (HTTP ${error.statusCode})` : ""}`,
      retryPossible: error.isRetryable,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { errorType: "run_error", errorMessage: message.slice(0, 500), retryPossible: false };
}

/** PostgreSQL text and jsonb cannot hold NUL characters; models can still produce them. */
function withoutNul(text: string): string {
  return text.replaceAll("\u0000", "");
}

/** A plain-JSON copy of what a model or tool produced, safe to store in an event. */
function jsonSafe(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value ?? null).replaceAll("\\u0000", ""));
  } catch {
    return withoutNul(String(value));
  }
}

/**
 * Runs one claimed agent run to the end: builds its prompt, streams the model with the
 * room's tools for at most `max_steps` steps, turns every step into a `run.step` event
 * (text, tool calls, results, duration, tokens, cost) and finishes the run. Typing goes to
 * viewers as ephemeral events. A failure here ends this run only.
 */
export async function executeRun(
  deps: ExecuteDeps,
  run: Run,
  options: { owner: string; signal: AbortSignal; stopReason: () => StopReason | null },
): Promise<RunOutcome | null> {
  const { database, bus } = deps;
  const db = database.db;
  const now = deps.now ?? (() => new Date());
  const started = performance.now();
  const totals = { steps: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };

  const [agent] = await db.select().from(agents).where(eq(agents.id, run.agentId));
  const [room] = await db.select().from(rooms).where(eq(rooms.id, run.roomId));
  if (!agent || !room) return null;
  const actor = { id: agent.id, name: agent.name };

  const finish = async (status: RunOutcome["status"], error: ErrorDetails | null) => {
    const outcome: RunOutcome = { status, error, durationMs: Math.round(performance.now() - started) };
    const finished = await finishRun(db, run, actor, outcome, options.owner);
    return finished ? outcome : null;
  };

  let resolved: ResolvedModel;
  try {
    resolved = deps.resolveModel(agent.model);
  } catch (error) {
    return finish("failed", errorDetails(error));
  }

  const settings = parseRoomSettings(room.settings);
  const team: Agent[] = await db.select().from(agents).where(eq(agents.roomId, run.roomId));
  const active: ActiveRun = {
    database,
    bus,
    run,
    agent,
    team,
    settings,
    author: agentAuthor(agent),
    now,
    resolveModel: deps.resolveModel,
    state: { requestsMade: 0, createdNodeIds: [] },
  };
  const tools = createAgentTools(active);
  const context = await loadPromptContext(db, {
    run,
    agent,
    team,
    settings,
    now: now(),
    toolNames: Object.keys(tools),
  });
  const { system, prompt } = buildPrompt(context);

  if (run.requestEntryId) {
    await writeRoomEvents(db, run.roomId, (tx, emit) =>
      setRequestStatus(tx, emit, {
        roomId: run.roomId,
        entryId: run.requestEntryId!,
        status: "in_progress",
        runId: run.id,
        actor,
        correlationId: run.correlationId,
      }),
    );
  }

  const messages: ModelMessage[] = [{ role: "user", content: prompt }];
  const lateNotes: string[] = [];
  const transcript: unknown[] = [{ role: "system", content: system }, { role: "user", content: prompt }];
  let current: StepRecord = { step: 0, text: "", toolCalls: [], toolResults: [] };
  let stepStarted = performance.now();
  let typingBuffer = "";
  let runText = "";
  let lastSaved = 0;

  // Typing goes out one batch after another: sent side by side on the pool's connections, a
  // later batch could overtake an earlier one (or the step's own event) and garble the text.
  let typingSent: Promise<void> = Promise.resolve();
  const flushTyping = (): Promise<void> => {
    if (!typingBuffer) return typingSent;
    const delta = typingBuffer;
    typingBuffer = "";
    const step = current.step;
    typingSent = typingSent.then(() =>
      bus
        .publishEphemeral({ type: "agent.typing", room_id: run.roomId, payload: { runId: run.id, agentId: agent.id, step, delta } })
        .catch(() => {}),
    );
    return typingSent;
  };
  const typingTimer = setInterval(() => void flushTyping(), deps.typingFlushMs ?? 80);
  typingTimer.unref?.();

  try {
    const result = streamText({
      model: resolved.model,
      system,
      messages,
      tools,
      stopWhen: isStepCount(settings.max_steps),
      abortSignal: options.signal,
      maxRetries: deps.maxRetries ?? 2,
      seed: settings.script_seed,
      // Notes that arrive while the run streams (what its shadow answered) are shown from the next step on.
      prepareStep: async ({ messages: current, stepNumber }) => {
        if (stepNumber === 0) return undefined;
        const fresh = await takeNotes(db, agent.id, run.id).catch(() => []);
        if (fresh.length === 0) return undefined;
        lateNotes.push(...fresh);
        return { messages: [...current, { role: "user" as const, content: fresh.join("\n") }] };
      },
      // Errors surface in the stream and end this run below; nothing to log twice.
      onError: () => {},
    });

    for await (const part of result.fullStream) {
      switch (part.type) {
        case "start-step":
          stepStarted = performance.now();
          current = { step: totals.steps, text: "", toolCalls: [], toolResults: [] };
          break;
        case "text-delta":
          current.text += part.text;
          runText += part.text;
          typingBuffer += part.text;
          if (Date.now() - lastSaved > (deps.streamingSaveMs ?? 1000)) {
            lastSaved = Date.now();
            void db.update(runs).set({ streamingText: withoutNul(runText.slice(-4000)) }).where(eq(runs.id, run.id)).catch(() => {});
          }
          break;
        case "tool-call":
          current.toolCalls.push({ id: part.toolCallId, name: part.toolName, input: jsonSafe(part.input) });
          break;
        case "tool-result":
          current.toolResults.push({ id: part.toolCallId, name: part.toolName, output: jsonSafe(part.output) });
          break;
        case "tool-error":
          current.toolResults.push({
            id: part.toolCallId,
            name: part.toolName,
            error: withoutNul(part.error instanceof Error ? part.error.message : String(part.error)).slice(0, 500),
          });
          break;
        case "finish-step": {
          // The step's typing reaches the room before the step itself.
          await flushTyping();
          const inputTokens = part.usage.inputTokens ?? 0;
          const outputTokens = part.usage.outputTokens ?? 0;
          const costUsd = costOf(resolved.spec, inputTokens, outputTokens);
          const durationMs = Math.round(performance.now() - stepStarted);
          totals.steps += 1;
          totals.inputTokens += inputTokens;
          totals.outputTokens += outputTokens;
          totals.costUsd += costUsd;
          transcript.push({ role: "assistant", step: current.step, text: withoutNul(current.text), toolCalls: current.toolCalls });
          if (current.toolResults.length) transcript.push({ role: "tool", step: current.step, results: current.toolResults });
          // The step's event and the run's running totals are written together.
          await writeRoomEvents(db, run.roomId, async (tx, emit) => {
            emit({
              type: "run.step",
              actor,
              correlationId: run.correlationId,
              nextSteps: current.toolCalls.length ? ["run.step"] : ["run.finished"],
              payload: {
                runId: run.id,
                agentId: agent.id,
                step: current.step,
                text: withoutNul(current.text),
                toolCalls: current.toolCalls,
                toolResults: current.toolResults,
                durationMs,
                inputTokens,
                outputTokens,
                costUsd,
              },
            });
            await tx
              .update(runs)
              .set({
                steps: sql`${runs.steps} + 1`,
                inputTokens: sql`${runs.inputTokens} + ${inputTokens}`,
                outputTokens: sql`${runs.outputTokens} + ${outputTokens}`,
                costUsd: sql`${runs.costUsd} + ${costUsd}`,
                transcript,
              })
              .where(eq(runs.id, run.id));
          });
          break;
        }
        case "error":
          throw part.error;
        default:
          break;
      }
    }
  } catch (error) {
    clearInterval(typingTimer);
    await flushTyping();
    const reason = options.stopReason();
    if (reason === "lease_lost" || reason === "shutdown") return null;
    if (reason === "cancelled" || options.signal.aborted) {
      return finish("cancelled", { errorType: "cancelled", errorMessage: "Cancelled.", retryPossible: false });
    }
    return finish("failed", errorDetails(error));
  }
  clearInterval(typingTimer);
  await flushTyping();
  const reason = options.stopReason();
  if (reason === "lease_lost" || reason === "shutdown") return null;
  if (reason === "cancelled") return finish("cancelled", { errorType: "cancelled", errorMessage: "Cancelled.", retryPossible: false });
  return finish("succeeded", null);
}
