import { type ToolSet, isStepCount, streamText } from "ai";
import { PROMPT_SECTIONS_KEY } from "./prompt-sections";
import { eq } from "drizzle-orm";
import type { Database } from "@/db";
import { type Agent, type Run, type RunOpening, agents, rooms, runs } from "@/db/schema";
import { notesWaiting, takeWaitingNotes } from "@/lib/broadcast/agent-notes";
import { appendEvents } from "@/lib/events/write-room-events";
import { getEnv } from "@/lib/env";
import { limitErrorDetails } from "@/lib/limits/limit-reached";
import { countCalls } from "@/lib/limits/repeated-calls";
import { callWorstCase, releaseReservation, releaseRunReservations, reserveSpend } from "@/lib/limits/reserve-spend";
import { generationSettings } from "@/lib/models/generation-settings";
import { usageFigures } from "@/lib/models/pricing";
import type { ModelResolver, ResolvedModel } from "@/lib/models/registry";
import type { ErrorDetails, LimitReachedPayload } from "@/lib/protocol";
import type { RoomBus } from "@/lib/realtime/bus";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { type RunOutcome, finishRun } from "./finish-run";
import { PendingModelCalls } from "./record-model-call";
import { watchRemoteTasks } from "./remote-task-events";
import { SpendRefusedError, withSpendReservations } from "./reserve-calls";
import { type ActiveRun, agentAuthor } from "./run-context";
import { lateNotesBudget } from "./run-conversation";
import { type JournalPorts, RunJournal, type StopReason } from "./run-journal";
import { errorDetails, openConversation, stepsLeft, unshownNotes } from "./run-opening";
import { LeaseLostError, loadSavedSteps, saveRunStep } from "./save-run-step";
import { createAgentTools } from "./tools";
import { connectAgentMcpTools } from "./tools/mcp-tools";
import { countRequestsMade } from "./tools/reserve-request";
import { MODEL_CALL_TIMEOUT_MS, RETRY_DELAYS_MS, withVisibleRetries } from "./visible-retries";
import { teamOf } from "./team";

export type { StopReason } from "./run-journal";

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

type RunOptions = { owner: string; signal: AbortSignal; stopReason: () => StopReason | null };

/** How the journal reaches the database, the bus and the clock for one run. */
function journalPorts(
  deps: ExecuteDeps,
  run: Run,
  agent: Agent,
  owner: string,
  modelCalls: PendingModelCalls,
  resolved: ResolvedModel,
): JournalPorts {
  const { database, bus } = deps;
  const db = database.db;
  const actor = { id: agent.id, name: agent.name };
  return {
    publishTyping: (step, delta) =>
      bus.publishEphemeral({ type: "agent.typing", room_id: run.roomId, payload: { runId: run.id, agentId: agent.id, step, delta } }),
    saveStreamingText: (text) => {
      void db
        .update(runs)
        .set({ streamingText: text })
        .where(eq(runs.id, run.id))
        .catch(() => {});
    },
    takeWaitingNotes: async (step) => {
      if (!(await notesWaiting(db, agent.id).catch(() => false))) return [];
      const reader = { roomId: run.roomId, agentId: agent.id, agentName: agent.name, runId: run.id, correlationId: run.correlationId };
      return takeWaitingNotes(db, { ...reader, step, carry: modelCalls }).catch(() => []);
    },
    saveStep: (step) => saveRunStep(db, run, actor, owner, { ...step, carry: modelCalls }),
    addModelCall: (call) => modelCalls.add(call),
    usage: (usage) => usageFigures(resolved.spec, usage),
    clock: () => performance.now(),
    wallClock: () => Date.now(),
    streamingSaveMs: deps.streamingSaveMs,
  };
}

/** The run's model: each call reserves its worst case first, and a call that fails for a passing reason is retried in view of the room. */
function runModel(active: ActiveRun, journal: RunJournal, resolved: ResolvedModel, owner: string) {
  const { database, run, agent, settings, modelCalls } = active;
  const env = getEnv();
  const policy = active.modelCallPolicy ?? { retryDelaysMs: RETRY_DELAYS_MS, timeoutMs: MODEL_CALL_TIMEOUT_MS };
  const reservingRun = { ...run, leaseOwner: owner, agentName: agent.name };
  const actor = { id: agent.id, name: agent.name };
  const retrying = withVisibleRetries(resolved.model, {
    delays: policy.retryDelaysMs,
    timeoutMs: policy.timeoutMs,
    onRetry: async (notice) => {
      const payload = { runId: run.id, agentId: agent.id, step: journal.step, ...notice };
      const event = {
        type: "run.retrying" as const,
        actor,
        correlationId: run.correlationId,
        status: "pending" as const,
        errorDetails: notice.error,
        payload,
      };
      await appendEvents(database.db, run.roomId, [event], { carry: modelCalls });
    },
  });
  return withSpendReservations(retrying, {
    defaultOutputTokens: env.PARLEY_MAX_OUTPUT_TOKENS,
    reserve: (worst) =>
      reserveSpend(
        database.db,
        reservingRun,
        callWorstCase(resolved.spec, worst.inputTokens, worst.outputTokens),
        settings,
        active.now(),
        env,
      ),
    release: (id) => releaseReservation(database.db, id),
    held: (id) => journal.holdReservation(id),
  });
}

/** Streams the model step by step, the journal keeping what happens; resolves with what ended the stream, if anything. */
async function streamSteps(
  active: ActiveRun,
  journal: RunJournal,
  how: { resolved: ResolvedModel; owner: string; signal: AbortSignal; tools: ToolSet; opening: RunOpening; remaining: number },
): Promise<unknown> {
  const runSignal = AbortSignal.any([how.signal, journal.haltSignal]);
  let failure: unknown = null;
  try {
    const result = streamText({
      model: runModel(active, journal, how.resolved, how.owner),
      system: how.opening.system,
      messages: journal.messages(),
      // The opening as data, for the offline model; a provider reads only its own namespace.
      ...(how.opening.sections ? { providerOptions: { [PROMPT_SECTIONS_KEY]: { prompt: how.opening.sections } } } : {}),
      tools: how.tools,
      // A loop guard that stopped one of the step's calls ends the run once the step is saved.
      stopWhen: [isStepCount(how.remaining), () => journal.stopping],
      abortSignal: runSignal,
      // Retries are made by the model itself (`withVisibleRetries`), each announced in the room.
      maxRetries: 0,
      // The room's seed keeps the offline model reproducible; an agent's own seed wins.
      seed: active.settings.script_seed,
      // Every call has an output limit: what it could spend at most is reserved before it is made.
      maxOutputTokens: getEnv().PARLEY_MAX_OUTPUT_TOKENS,
      ...generationSettings(active.agent.modelOptions),
      // Each step reads the whole conversation again, with the notes where they arrived (docs/behaviour/asking-others.md).
      prepareStep: async ({ stepNumber }) => ({ messages: await journal.beginStep(stepNumber, runSignal) }),
      onChunk: ({ chunk }) => {
        if (chunk.type === "text-delta") journal.type(chunk.text);
      },
      // The SDK starts the next step only once this has settled: a step's tools never run before the step before it is saved.
      onStepEnd: (step) => journal.saveStep(step),
      onLanguageModelCallEnd: ({ usage }) => journal.recordCall(usage),
      // Errors surface in the stream and end this run below; nothing to log twice.
      onError: () => {},
    });
    for await (const part of result.fullStream) {
      if (part.type === "error") throw part.error;
    }
  } catch (error) {
    failure = error;
  }
  return failure;
}

/**
 * Runs one claimed agent run to the end: builds its prompt, streams the model with the
 * room's tools for at most `max_steps` steps, records each model call's usage as it returns
 * (the run's totals), saves every step as it completes together with its `run.step` event
 * (a summary of what the model was given, text, tool calls, results, duration, tokens, cost),
 * and finishes the run. A run an earlier worker left unfinished continues its conversation
 * after the last saved step, with the steps it has left, so the tools of saved steps never run
 * again. Typing goes to viewers as ephemeral events. A failure here ends this run only.
 * What the run keeps while it works is its `RunJournal`; this is the wiring between the journal, the SDK and the database.
 */
export async function executeRun(deps: ExecuteDeps, run: Run, options: RunOptions): Promise<RunOutcome | null> {
  const { database } = deps;
  const db = database.db;
  const started = performance.now();
  const [[room], everyone, saved, team] = await Promise.all([
    db.select().from(rooms).where(eq(rooms.id, run.roomId)),
    db.select().from(agents).where(eq(agents.roomId, run.roomId)),
    run.attempts > 1 ? loadSavedSteps(db, run.id) : Promise.resolve([]),
    teamOf(db, run),
  ]);
  const agent = everyone.find((member) => member.id === run.agentId);
  if (!agent || !room) return null;
  const actor = { id: agent.id, name: agent.name };
  const earlierMs = saved.reduce((total, step) => total + step.durationMs, 0);
  // A run that fails before its model calls are kept has made none.
  let carry: PendingModelCalls | undefined;
  const finish = async (status: RunOutcome["status"], error: ErrorDetails | null, limit?: LimitReachedPayload) => {
    const outcome: RunOutcome = { status, error, limit, durationMs: earlierMs + Math.round(performance.now() - started) };
    return (await finishRun(db, run, actor, outcome, options.owner, carry)) ? outcome : null;
  };
  let resolved: ResolvedModel;
  try {
    resolved = deps.resolveModel(agent.model, agent.modelOptions);
  } catch (error) {
    return finish("failed", errorDetails(error));
  }
  const remoteTasks = watchRemoteTasks(db, run, actor, resolved.model);
  const settings = parseRoomSettings(room.settings);
  const modelCalls = new PendingModelCalls(run.id, database);
  carry = modelCalls;
  // Requests made by earlier attempts still count towards the run's allowance.
  const requests = run.attempts > 1 ? await countRequestsMade(db, run) : { work: 0, help: 0 };
  const journal = new RunJournal(
    {
      ...{ runId: run.id, agentId: agent.id, attempt: run.attempts, saved: saved.map(({ notes, messages }) => ({ notes, messages })) },
      ...{ requestsMade: requests.work, helpRequested: requests.help, callsThisRun: countCalls(saved.map((step) => step.messages)) },
    },
    journalPorts(deps, run, agent, options.owner, modelCalls, resolved),
  );
  const { members, isolated } = team(everyone, agent);
  const modelCallPolicy = {
    retryDelaysMs: deps.retryDelaysMs ?? RETRY_DELAYS_MS,
    timeoutMs: deps.modelCallTimeoutMs ?? MODEL_CALL_TIMEOUT_MS,
  };
  const active: ActiveRun = {
    ...{ database, bus: deps.bus, run, agent, team: members, isolated, settings, author: agentAuthor(agent) },
    ...{ now: deps.now ?? (() => new Date()), modelCalls, resolveModel: deps.resolveModel, modelCallPolicy, state: journal },
  };
  // Closed however the run ends: a command an MCP server runs as never outlives its run.
  await using mcpTools = await connectAgentMcpTools(active);
  const tools = { ...mcpTools.tools, ...createAgentTools(active) };
  const opening = run.opening ?? (await openConversation(active, Object.keys(tools)));
  const unshown = run.opening ? await unshownNotes(database, run.id, opening, saved) : [];
  journal.open({ opening, isNew: !run.opening, unshown, notesBudget: lateNotesBudget(settings, opening.contextTokens) });
  const remaining = stepsLeft(settings, saved);
  if (remaining === 0) return finish("succeeded", null);

  const typingTimer = setInterval(() => void journal.flushTyping(), deps.typingFlushMs ?? 80);
  typingTimer.unref?.();
  const failure = await streamSteps(active, journal, { resolved, owner: options.owner, signal: options.signal, tools, opening, remaining });
  clearInterval(typingTimer);
  if (failure instanceof SpendRefusedError) journal.refuseSpend(failure.reached);
  await journal.settle();
  // Calls given back by a failed write and being written on their own are in the totals before the run ends.
  await modelCalls.settled();
  await remoteTasks.settled();
  const end = journal.end({
    failure,
    reason: options.stopReason(),
    aborted: options.signal.aborted,
    lostLease: (error) => error instanceof LeaseLostError,
  });
  if (end.kind === "abandon") {
    // No write of this run will carry them now; they were spent all the same.
    await modelCalls.flush().catch(() => {});
    await releaseRunReservations(db, run.id, options.owner).catch(() => {});
    return null;
  }
  if (end.status === "cancelled")
    return finish("cancelled", { error_type: "cancelled", error_message: "Cancelled.", retry_possible: false });
  if (end.limit) return finish("failed", limitErrorDetails(end.limit), end.limit);
  return end.error ? finish("failed", errorDetails(end.error)) : finish("succeeded", null);
}
