import { APICallError } from "@ai-sdk/provider";
import { type LanguageModelCallEndEvent, type ModelMessage, RetryError, type StepResult, type ToolSet, isStepCount, streamText } from "ai";
import { eq } from "drizzle-orm";
import type { Database } from "@/db";
import { type Run, type RunOpening, type RunStep, type ShownNote, agents, rooms, runs } from "@/db/schema";
import { notesDeliveredTo, notesWaiting, takeWaitingNotes } from "@/lib/broadcast/agent-notes";
import { appendEvents } from "@/lib/events/write-room-events";
import { usageFigures } from "@/lib/models/pricing";
import { type ModelResolver, ModelUnavailableError, type ResolvedModel } from "@/lib/models/registry";
import type { ErrorDetails, LimitReachedPayload, PayloadOf, PromptSummary } from "@/lib/protocol";
import { limitErrorDetails } from "@/lib/limits/limit-reached";
import { countCalls } from "@/lib/limits/repeated-calls";
import type { RoomBus } from "@/lib/realtime/bus";
import { type RoomSettings, parseRoomSettings } from "@/lib/rooms/room-settings";
import { buildPrompt } from "./build-prompt";
import { type RunOutcome, finishRun } from "./finish-run";
import { loadPromptContext } from "./load-prompt-context";
import { PendingModelCalls } from "./record-model-call";
import { type ActiveRun, agentAuthor } from "./run-context";
import { type ConversationStep, conversationMessages, lateNotesBudget } from "./run-conversation";
import { LeaseLostError, loadSavedSteps, saveRunStep } from "./save-run-step";
import { summarizePrompt } from "./summarize-prompt";
import { createAgentTools } from "./tools";
import { connectAgentMcpTools } from "./tools/mcp-tools";
import { isolatedAgentIds } from "@/lib/brainstorm/stage-context";
import { MODEL_CALL_TIMEOUT_MS, ModelCallTimeoutError, RETRY_DELAYS_MS, providerErrorDetails, withVisibleRetries } from "./visible-retries";
import { countRequestsMade } from "./tools/reserve-request";
import { watchRemoteTasks } from "./remote-task-events";
import { generationSettings } from "@/lib/models/generation-settings";
import { getEnv } from "@/lib/env";
import { callWorstCase, releaseReservation, releaseRunReservations, reserveSpend } from "@/lib/limits/reserve-spend";
import { SpendRefusedError, withSpendReservations } from "./reserve-calls";

export interface ExecuteDeps {
  database: Database;
  bus: RoomBus;
  resolveModel: ModelResolver;
  now?: () => Date;
  /** How often typed text is flushed to viewers. */
  typingFlushMs?: number;
  /** How often the text being written is saved for shadows on other instances. */
  streamingSaveMs?: number;
  /**
   * The waits before each retry of a model call that failed for a passing reason (429, 5xx,
   * timeouts): about 1, 4 and 16 s by default. Each retry is an event; the SDK retries nothing.
   */
  retryDelaysMs?: readonly number[];
  /** How long a model call may wait for its provider before it times out (and is retried); `MODEL_CALL_TIMEOUT_MS` by default. */
  modelCallTimeoutMs?: number;
}

/** Why a run stopped early: cancelled by someone, its lease taken over, or its worker shutting down. */
export type StopReason = "cancelled" | "lease_lost" | "shutdown";

type StepSummary = Pick<PayloadOf<"run.step">, "text" | "toolCalls" | "toolResults">;

function errorDetails(error: unknown): ErrorDetails {
  // After its retries the SDK reports the last provider error wrapped in a RetryError.
  if (RetryError.isInstance(error) && error.lastError) return errorDetails(error.lastError);
  if (error instanceof ModelUnavailableError) {
    return { error_type: "model_unavailable", error_message: error.message, retry_possible: false };
  }
  if (APICallError.isInstance(error) || error instanceof ModelCallTimeoutError) return providerErrorDetails(error);
  const message = error instanceof Error ? error.message : String(error);
  return { error_type: "run_error", error_message: message.slice(0, 500), retry_possible: false };
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

/** What the room sees of a step: its text, the tools it called and what they returned or why they failed. */
function summarizeStep(step: StepResult<ToolSet>): StepSummary {
  const summary: StepSummary = { text: "", toolCalls: [], toolResults: [] };
  for (const part of step.content) {
    if (part.type === "text") summary.text += withoutNul(part.text);
    else if (part.type === "tool-call") {
      summary.toolCalls.push({ id: part.toolCallId, name: part.toolName, input: jsonSafe(part.input) });
    } else if (part.type === "tool-result") {
      summary.toolResults.push({ id: part.toolCallId, name: part.toolName, output: jsonSafe(part.output) });
    } else if (part.type === "tool-error") {
      const error = part.error instanceof Error ? part.error.message : String(part.error);
      summary.toolResults.push({ id: part.toolCallId, name: part.toolName, error: withoutNul(error).slice(0, 500) });
    }
  }
  return summary;
}

/** Whether a saved step asked for tools, so the model has a next step to take. */
function callsTools(messages: ModelMessage[]): boolean {
  return messages.some(
    (message) =>
      message.role === "assistant" && Array.isArray(message.content) && message.content.some((part) => part.type === "tool-call"),
  );
}

/** Builds what the model is first given: persona and guidance, then the task and the room as it is now. */
async function openConversation(
  active: Pick<ActiveRun, "database" | "run" | "agent" | "team" | "isolated" | "settings" | "now" | "state" | "modelCalls">,
  toolNames: string[],
): Promise<RunOpening> {
  const { run, agent, team, settings } = active;
  const context = await loadPromptContext(active.database.db, {
    run,
    agent,
    team,
    isolated: active.isolated,
    settings,
    now: active.now(),
    toolNames,
    notes: {
      roomId: run.roomId,
      agentId: agent.id,
      agentName: agent.name,
      runId: run.id,
      correlationId: run.correlationId,
      step: active.state.step,
      carry: active.modelCalls,
    },
  });
  const { system, prompt, contextTokens } = buildPrompt(context);
  return { system, prompt, noteIds: context.noteIds, contextTokens };
}

/** Notes an earlier attempt took but saved with no step (its worker died first): not yet shown. */
async function unshownNotes(database: Database, runId: string, opening: RunOpening, saved: RunStep[]): Promise<ShownNote[]> {
  const shown = new Set([...opening.noteIds, ...saved.flatMap((step) => step.notes.map((note) => note.id))]);
  return (await notesDeliveredTo(database.db, runId)).filter((note) => !shown.has(note.id));
}

/** The steps to take on: the room's budget less the steps earlier attempts completed. */
function stepsLeft(settings: RoomSettings, saved: { messages: ModelMessage[] }[]): number {
  const last = saved.at(-1);
  // The last saved step answered without tools: the run was done when its worker stopped.
  if (last && !callsTools(last.messages)) return 0;
  return Math.max(0, settings.max_steps - saved.length);
}

/**
 * Runs one claimed agent run to the end: builds its prompt, streams the model with the
 * room's tools for at most `max_steps` steps, records each model call's usage as it returns
 * (the run's totals), saves every step as it completes together with its `run.step` event
 * (a summary of what the model was given, text, tool calls, results, duration, tokens, cost),
 * and finishes the run. A run an earlier worker left unfinished continues its conversation
 * after the last saved step, with the steps it has left, so the tools of saved steps never run
 * again. Typing goes to viewers as ephemeral events. A failure here ends this run only.
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

  const [[room], everyone, saved, alone] = await Promise.all([
    db.select().from(rooms).where(eq(rooms.id, run.roomId)),
    db.select().from(agents).where(eq(agents.roomId, run.roomId)),
    run.attempts > 1 ? loadSavedSteps(db, run.id) : Promise.resolve([]),
    isolatedAgentIds(db, run.roomId),
  ]);
  const agent = everyone.find((member) => member.id === run.agentId);
  const isolated = !!agent && alone.has(agent.id);
  const team = isolated ? [agent] : everyone.filter((member) => !alone.has(member.id));
  if (!agent || !room) return null;
  const actor = { id: agent.id, name: agent.name };
  const resumed = run.attempts > 1;
  const earlierMs = saved.reduce((total, step) => total + step.durationMs, 0);

  // Assigned once the run knows its team; a run that fails before that has made no model call.
  let carry: PendingModelCalls | undefined;
  const finish = async (status: RunOutcome["status"], error: ErrorDetails | null, limit?: LimitReachedPayload) => {
    const outcome: RunOutcome = { status, error, limit, durationMs: earlierMs + Math.round(performance.now() - started) };
    const finished = await finishRun(db, run, actor, outcome, options.owner, carry);
    return finished ? outcome : null;
  };

  let resolved: ResolvedModel;
  try {
    resolved = deps.resolveModel(agent.model, agent.modelOptions);
  } catch (error) {
    return finish("failed", errorDetails(error));
  }
  const remoteTasks = watchRemoteTasks(db, run, actor, resolved.model);

  const settings = parseRoomSettings(room.settings);
  const modelCallPolicy = {
    retryDelaysMs: deps.retryDelaysMs ?? RETRY_DELAYS_MS,
    timeoutMs: deps.modelCallTimeoutMs ?? MODEL_CALL_TIMEOUT_MS,
  };
  const modelCalls = new PendingModelCalls(run.id, database);
  carry = modelCalls;
  const active: ActiveRun = {
    database,
    bus,
    run,
    agent,
    team,
    isolated,
    settings,
    author: agentAuthor(agent),
    now,
    modelCalls,
    resolveModel: deps.resolveModel,
    modelCallPolicy,
    // Requests made by earlier attempts still count towards the run's allowance.
    state: {
      ...(resumed
        ? await countRequestsMade(db, run).then(({ work, help }) => ({ requestsMade: work, helpRequested: help }))
        : { requestsMade: 0, helpRequested: 0 }),
      createdNodeIds: [],
      step: saved.length,
      callsThisStep: new Map(),
      callsThisRun: countCalls(saved.map((step) => step.messages)),
      stop: null,
    },
  };
  // Closed however the run ends: a command an MCP server runs as never outlives its run.
  await using mcpTools = await connectAgentMcpTools(active);
  const tools = { ...mcpTools.tools, ...createAgentTools(active) };
  const opening = run.opening ?? (await openConversation(active, Object.keys(tools)));

  const remaining = stepsLeft(settings, saved);
  if (remaining === 0) return finish("succeeded", null);

  const noteReader = (atStep: number) => ({
    roomId: run.roomId,
    agentId: agent.id,
    agentName: agent.name,
    runId: run.id,
    correlationId: run.correlationId,
    step: atStep,
    carry: modelCalls,
  });
  const history: ConversationStep[] = saved.map(({ notes, messages }) => ({ notes, messages }));
  const notesBudget = lateNotesBudget(settings, opening.contextTokens);
  // Notes that arrived while the run worked are shown from its next step on.
  let arrived: ShownNote[] = run.opening ? await unshownNotes(database, run.id, opening, saved) : [];
  let stepNotes: ShownNote[] = [];
  // What the model was given for the step under way, in brief, for the dashboard.
  let stepPrompt: PromptSummary | undefined;
  // What the next saved step adds to the run's transcript: the opening messages too, when this
  // attempt starts the conversation.
  let unsavedTranscript: unknown[] = run.opening
    ? []
    : [
        { role: "system", content: opening.system },
        { role: "user", content: opening.prompt },
      ];
  // Saved with this attempt's first step: until a step is saved, another attempt may as well start afresh.
  let unsavedOpening: RunOpening | null = run.opening ? null : opening;
  let step = saved.length;
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
    const typingStep = step;
    typingSent = typingSent.then(() =>
      bus
        .publishEphemeral({
          type: "agent.typing",
          room_id: run.roomId,
          payload: { runId: run.id, agentId: agent.id, step: typingStep, delta },
        })
        .catch(() => {}),
    );
    return typingSent;
  };
  const typingTimer = setInterval(() => void flushTyping(), deps.typingFlushMs ?? 80);
  typingTimer.unref?.();

  const saveStep = async (result: StepResult<ToolSet>) => {
    // The step's typing reaches the room before the step itself.
    await flushTyping();
    const summary = summarizeStep(result);
    const record = { runId: run.id, agentId: agent.id, step, ...summary, ...(stepPrompt ? { prompt: stepPrompt } : {}) };
    const added = [...unsavedTranscript];
    if (stepNotes.length) added.push({ role: "user", step, notes: stepNotes.map((note) => note.text) });
    added.push({ role: "assistant", step, text: summary.text, toolCalls: summary.toolCalls });
    if (summary.toolResults.length) added.push({ role: "tool", step, results: summary.toolResults });
    const messages = jsonSafe(result.response.messages) as ModelMessage[];
    await saveRunStep(db, run, actor, options.owner, {
      summary: {
        ...record,
        durationMs: Math.round(performance.now() - stepStarted),
        ...usageFigures(resolved.spec, result.usage),
      },
      messages,
      notes: stepNotes,
      attempt: run.attempts,
      opening: unsavedOpening,
      transcript: added,
      carry: modelCalls,
    });
    unsavedTranscript = [];
    unsavedOpening = null;
    history.push({ notes: stepNotes, messages });
  };

  // A step that cannot be saved, or a model call whose usage cannot be recorded, stops the run:
  // its next step must not run without it, nor spend what the run's totals would not show.
  const halt = new AbortController();
  let writeFailure: unknown = null;
  // A budget or the workflow's cost cap reached before a step: the run stops there.
  let limitStop: LimitReachedPayload | null = null;
  const stopOnWriteFailure = (error: unknown) => {
    writeFailure ??= error;
    halt.abort(error);
  };
  let saving: Promise<void> = Promise.resolve();

  // Each model call that returned usage is written with the first thing its step writes (a
  // tool's node, or the step itself): the provider bills it even when its step is never saved,
  // and a later attempt calls the model for that step again. Nothing waits for it on its own.
  let calls = 0;
  // The reservation of the call that just returned: its recorded usage takes its place.
  let heldReservation: string | undefined;
  const recordCall = ({ usage }: LanguageModelCallEndEvent) => {
    const reservationId = heldReservation;
    heldReservation = undefined;
    modelCalls.add({
      attempt: run.attempts,
      call: calls++,
      step,
      ...usageFigures(resolved.spec, usage),
      ...(reservationId ? { reservationId } : {}),
    });
  };
  const generation = generationSettings(agent.modelOptions);
  const env = getEnv();
  const reservingRun = { ...run, leaseOwner: options.owner, agentName: agent.name };

  const ended = async (failure: unknown): Promise<RunOutcome | null> => {
    clearInterval(typingTimer);
    await saving;
    await flushTyping();
    // Calls given back by a failed write and being written on their own are in the totals before the run ends.
    await modelCalls.settled();
    await remoteTasks.settled();
    if (failure instanceof SpendRefusedError) limitStop ??= failure.reached;
    const reason = options.stopReason();
    if (reason === "lease_lost" || reason === "shutdown" || writeFailure instanceof LeaseLostError) {
      // No write of this run will carry them now; they were spent all the same.
      await modelCalls.flush().catch(() => {});
      await releaseRunReservations(db, run.id, options.owner).catch(() => {});
      return null;
    }

    if (reason === "cancelled" || (failure && options.signal.aborted)) {
      return finish("cancelled", { error_type: "cancelled", error_message: "Cancelled.", retry_possible: false });
    }
    const limit = limitStop ?? active.state.stop;
    if (limit && !writeFailure) return finish("failed", limitErrorDetails(limit), limit);
    const problem = writeFailure ?? failure;
    return problem ? finish("failed", errorDetails(problem)) : finish("succeeded", null);
  };

  const runSignal = AbortSignal.any([options.signal, halt.signal]);
  try {
    const result = streamText({
      model: withSpendReservations(
        withVisibleRetries(resolved.model, {
          delays: modelCallPolicy.retryDelaysMs,
          timeoutMs: modelCallPolicy.timeoutMs,
          onRetry: async (notice) => {
            await appendEvents(
              db,
              run.roomId,
              [
                {
                  type: "run.retrying",
                  actor,
                  correlationId: run.correlationId,
                  status: "pending",
                  errorDetails: notice.error,
                  payload: { runId: run.id, agentId: agent.id, step, ...notice },
                },
              ],
              { carry: modelCalls },
            );
          },
        }),
        {
          defaultOutputTokens: env.PARLEY_MAX_OUTPUT_TOKENS,
          reserve: (worst) =>
            reserveSpend(db, reservingRun, callWorstCase(resolved.spec, worst.inputTokens, worst.outputTokens), settings, now(), env),
          release: (id) => releaseReservation(db, id),
          held: (id) => {
            heldReservation = id;
          },
        },
      ),
      system: opening.system,
      messages: conversationMessages(opening.prompt, history, [], notesBudget),
      tools,
      // A loop guard that stopped one of the step's calls ends the run once the step is saved.
      stopWhen: [isStepCount(remaining), () => active.state.stop !== null],
      abortSignal: runSignal,
      // Retries are made by the model itself (`withVisibleRetries`), each announced in the room.
      maxRetries: 0,
      // The room's seed keeps the offline model reproducible; an agent's own seed wins.
      seed: settings.script_seed,
      // Every call has an output limit: what it could spend at most is reserved before it is made.
      maxOutputTokens: env.PARLEY_MAX_OUTPUT_TOKENS,
      ...generation,
      // Each step reads the whole conversation again, with the notes where they arrived
      // (docs/behaviour/asking-others.md): what the agent's shadow answered stays in its context for the rest of the run.
      prepareStep: async ({ stepNumber }) => {
        step = saved.length + stepNumber;
        stepStarted = performance.now();
        active.state.step = step;
        active.state.callsThisStep.clear();
        // A run already stopping takes no more notes: they would count as read by a step it never takes.
        runSignal.throwIfAborted();
        // Budgets and the workflow's cost cap were checked when the run was claimed; each model
        // call reserves what it could spend against them before it is made (`withSpendReservations`).
        // The opening message, when built just now, holds the notes that were waiting.
        const waiting = stepNumber > 0 || run.opening ? await notesWaiting(db, agent.id).catch(() => false) : false;
        if (waiting) arrived.push(...(await takeWaitingNotes(db, noteReader(step)).catch(() => [])));
        stepNotes = arrived;
        arrived = [];
        // A run stopped while its last step was being saved (its lease lost, say) asks the model nothing more.
        runSignal.throwIfAborted();
        const messages = conversationMessages(opening.prompt, history, stepNotes, notesBudget);
        stepPrompt = summarizePrompt({ system: opening.system, messages, previous: history.at(-1)?.messages ?? null, arrived: stepNotes });
        return { messages };
      },
      onChunk: ({ chunk }) => {
        if (chunk.type !== "text-delta") return;
        runText += chunk.text;
        typingBuffer += chunk.text;
        if (Date.now() - lastSaved > (deps.streamingSaveMs ?? 1000)) {
          lastSaved = Date.now();
          void db
            .update(runs)
            .set({ streamingText: withoutNul(runText.slice(-4000)) })
            .where(eq(runs.id, run.id))
            .catch(() => {});
        }
      },
      // The SDK starts the next step only once this has settled: a step's tools never run before the step before it is saved.
      onStepEnd: (result) => {
        saving = saveStep(result).catch(stopOnWriteFailure);
        return saving;
      },
      onLanguageModelCallEnd: recordCall,
      // Errors surface in the stream and end this run below; nothing to log twice.
      onError: () => {},
    });
    for await (const part of result.fullStream) {
      if (part.type === "error") throw part.error;
    }
  } catch (error) {
    return ended(error);
  }
  return ended(null);
}
