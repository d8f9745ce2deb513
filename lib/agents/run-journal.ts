import type { ModelMessage, StepResult, ToolSet } from "ai";
import type { RunOpening, ShownNote } from "@/db/schema";
import type { LimitReachedPayload, PayloadOf, PromptSummary } from "@/lib/protocol";
import type { ModelCallUsage } from "./record-model-call";
import type { RunState } from "./run-context";
import { type ConversationStep, conversationMessages } from "./run-conversation";
import type { CompletedStep } from "./save-run-step";
import { summarizePrompt } from "./summarize-prompt";

/** Why a run stopped early: cancelled by someone, its lease taken over, or its worker shutting down. */
export type StopReason = "cancelled" | "lease_lost" | "shutdown";

type StepSummary = Pick<PayloadOf<"run.step">, "text" | "toolCalls" | "toolResults">;

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

/** What the journal does outside itself: the database, the bus and the clock, handed in by the run's wiring. */
export interface JournalPorts {
  /** Sends typed text to viewers (ephemeral; a failure is ignored). */
  publishTyping(step: number, delta: string): Promise<void>;
  /** Saves the text being written for shadows on other instances (best effort). */
  saveStreamingText(text: string): void;
  /** Whether notes wait for the agent, and takes them (shown from the step under way). */
  takeWaitingNotes(step: number): Promise<ShownNote[]>;
  /** Saves a completed step with its `run.step` event; throws when the step cannot be saved. */
  saveStep(step: Omit<CompletedStep, "carry">): Promise<void>;
  /** Holds a model call's usage until the run's next write carries it. */
  addModelCall(call: ModelCallUsage): void;
  /** Usage figures (tokens, cost) of a model call, priced for the run's model. */
  usage(usage: StepResult<ToolSet>["usage"]): { inputTokens: number; outputTokens: number; costUsd: number };
  /** Milliseconds on a monotonic clock. */
  clock(): number;
  /** Milliseconds since the epoch, for throttling the streaming save. */
  wallClock(): number;
  /** How often the text being written is saved; 1 s by default. */
  streamingSaveMs?: number;
}

/** How the run ends, as the journal sees it: dropped for another worker, or finished with a status. */
type JournalEnd =
  | { kind: "abandon" }
  | { kind: "finish"; status: "succeeded" | "failed" | "cancelled"; limit?: LimitReachedPayload; error?: unknown };

interface JournalStart {
  runId: string;
  agentId: string;
  attempt: number;
  /** Steps earlier attempts saved. */
  saved: ConversationStep[];
  /** Requests earlier attempts made: they still count towards the run's allowance. */
  requestsMade: number;
  helpRequested: number;
  /** Calls of earlier attempts' saved steps, for the repeated-call guard. */
  callsThisRun: Map<string, number>;
}

interface JournalOpening {
  opening: RunOpening;
  /** This attempt built the opening: it is saved with the attempt's first step, and already holds the notes that were waiting. */
  isNew: boolean;
  /** Notes an earlier attempt took but never showed. */
  unshown: ShownNote[];
  /** How many tokens notes arriving late may take. */
  notesBudget: number;
}

/**
 * Everything one attempt of a run keeps while it works: the step under way, the notes shown and
 * waiting, the model calls it carries, the typing not yet sent, what the next save adds to the
 * transcript, the request allowances its tools spend and why it stops. The run's wiring calls
 * its methods as the SDK reports what happens; the journal talks to the outside only through its ports.
 */
export class RunJournal implements RunState {
  /** The step being taken (counted over all the run's attempts). */
  step: number;
  requestsMade: number;
  /** Help requests (request_help) made so far; they have an allowance of their own. */
  helpRequested: number;
  createdNodeIds: string[] = [];
  /** How many times each distinct call (tool and arguments) was made in this step so far. */
  readonly callsThisStep = new Map<string, number>();
  /** The same over the whole run (all its attempts' saved steps): the repeated-call guard's count. */
  readonly callsThisRun: Map<string, number>;
  /** A loop guard stopped the run: it ends, with this reason, once the current step is saved. */
  stop: LimitReachedPayload | null = null;

  private readonly history: ConversationStep[];
  private opening: JournalOpening = {
    opening: { system: "", prompt: "", noteIds: [], contextTokens: 0 },
    isNew: false,
    unshown: [],
    notesBudget: 0,
  };
  private arrived: ShownNote[] = [];
  private stepNotes: ShownNote[] = [];
  private stepPrompt: PromptSummary | undefined;
  private stepStarted: number;
  private unsavedTranscript: unknown[] = [];
  private unsavedOpening: RunOpening | null = null;
  private typingBuffer = "";
  private runText = "";
  private lastStreamingSave = 0;
  private typingSent: Promise<void> = Promise.resolve();
  private saving: Promise<void> = Promise.resolve();
  private calls = 0;
  private heldReservation: string | undefined;
  private writeFailure: unknown = null;
  private limitStop: LimitReachedPayload | null = null;
  private readonly savedBefore: number;
  private readonly halt = new AbortController();

  constructor(
    private readonly start: JournalStart,
    private readonly ports: JournalPorts,
  ) {
    this.history = [...start.saved];
    this.savedBefore = start.saved.length;
    this.step = start.saved.length;
    this.requestsMade = start.requestsMade;
    this.helpRequested = start.helpRequested;
    this.callsThisRun = start.callsThisRun;
    this.stepStarted = ports.clock();
  }

  /**
   * The conversation opens (built afresh, or as an earlier attempt saved it). A new opening goes
   * into the transcript with this attempt's first saved step: until a step is saved, another
   * attempt may as well start afresh.
   */
  open(opening: JournalOpening): void {
    this.opening = opening;
    this.arrived = [...opening.unshown];
    this.unsavedOpening = opening.isNew ? opening.opening : null;
    this.unsavedTranscript = opening.isNew
      ? [
          { role: "system", content: opening.opening.system },
          { role: "user", content: opening.opening.prompt },
        ]
      : [];
  }

  /** Aborted when a step cannot be saved or a call's usage cannot be recorded: the run must not go on without it. */
  get haltSignal(): AbortSignal {
    return this.halt.signal;
  }

  /** Whether a loop guard asked the run to stop once its step is saved. */
  get stopping(): boolean {
    return this.stop !== null;
  }

  /** The conversation as the model reads it before any late notes: for the SDK's first call. */
  messages(): ModelMessage[] {
    return conversationMessages(this.opening.opening.prompt, this.history, [], this.opening.notesBudget);
  }

  /**
   * A new step starts (`stepNumber` counts this attempt's steps): its calls are counted afresh,
   * the notes that arrived are shown from it on, and the conversation it reads is returned.
   * `signal` is checked before and after the notes are taken: a run already stopping takes no
   * more notes, and one stopped while its last step was saved asks the model nothing more.
   */
  async beginStep(stepNumber: number, signal: AbortSignal): Promise<ModelMessage[]> {
    this.step = this.savedBefore + stepNumber;
    this.stepStarted = this.ports.clock();
    this.callsThisStep.clear();
    signal.throwIfAborted();
    // The opening message, when built just now, holds the notes that were waiting.
    if (stepNumber > 0 || !this.opening.isNew) this.arrived.push(...(await this.ports.takeWaitingNotes(this.step)));
    this.stepNotes = this.arrived;
    this.arrived = [];
    signal.throwIfAborted();
    const { opening, notesBudget } = this.opening;
    const messages = conversationMessages(opening.prompt, this.history, this.stepNotes, notesBudget);
    this.stepPrompt = summarizePrompt({
      system: opening.system,
      messages,
      previous: this.history.at(-1)?.messages ?? null,
      arrived: this.stepNotes,
    });
    return messages;
  }

  /** The model wrote `text`: it goes to viewers with the next typing flush, and to the streaming save now and then. */
  type(text: string): void {
    this.runText += text;
    this.typingBuffer += text;
    const at = this.ports.wallClock();
    if (at - this.lastStreamingSave > (this.ports.streamingSaveMs ?? 1000)) {
      this.lastStreamingSave = at;
      this.ports.saveStreamingText(withoutNul(this.runText.slice(-4000)));
    }
  }

  /**
   * Sends the typing not yet sent. Batches go out one after another: sent side by side on the
   * pool's connections, a later batch could overtake an earlier one (or the step's own event).
   */
  flushTyping(): Promise<void> {
    if (!this.typingBuffer) return this.typingSent;
    const delta = this.typingBuffer;
    this.typingBuffer = "";
    const step = this.step;
    this.typingSent = this.typingSent.then(() => this.ports.publishTyping(step, delta).catch(() => {}));
    return this.typingSent;
  }

  /** A model call is about to be made and holds this reservation: its recorded usage takes its place. */
  holdReservation(id: string): void {
    this.heldReservation = id;
  }

  /**
   * A model call returned usage. It is written with the first thing its step writes (a tool's
   * node, or the step itself): the provider bills it even when its step is never saved.
   */
  recordCall(usage: StepResult<ToolSet>["usage"]): void {
    const reservationId = this.heldReservation;
    this.heldReservation = undefined;
    this.ports.addModelCall({
      attempt: this.start.attempt,
      call: this.calls++,
      step: this.step,
      ...this.ports.usage(usage),
      ...(reservationId ? { reservationId } : {}),
    });
  }

  /**
   * The step ended: saved with what it adds to the transcript (and the opening, on this attempt's
   * first save). The SDK starts the next step only once this has settled. A failed save halts the run.
   */
  saveStep(result: StepResult<ToolSet>): Promise<void> {
    this.saving = this.writeStep(result).catch((error: unknown) => this.failWrite(error));
    return this.saving;
  }

  private async writeStep(result: StepResult<ToolSet>): Promise<void> {
    // The step's typing reaches the room before the step itself.
    await this.flushTyping();
    const step = this.step;
    const summary = summarizeStep(result);
    const added = [...this.unsavedTranscript];
    if (this.stepNotes.length) added.push({ role: "user", step, notes: this.stepNotes.map((note) => note.text) });
    added.push({ role: "assistant", step, text: summary.text, toolCalls: summary.toolCalls });
    if (summary.toolResults.length) added.push({ role: "tool", step, results: summary.toolResults });
    const messages = jsonSafe(result.response.messages) as ModelMessage[];
    await this.ports.saveStep({
      summary: {
        runId: this.start.runId,
        agentId: this.start.agentId,
        step,
        ...summary,
        ...(this.stepPrompt ? { prompt: this.stepPrompt } : {}),
        durationMs: Math.round(this.ports.clock() - this.stepStarted),
        ...this.ports.usage(result.usage),
      },
      messages,
      notes: this.stepNotes,
      attempt: this.start.attempt,
      opening: this.unsavedOpening,
      transcript: added,
    });
    this.unsavedTranscript = [];
    this.unsavedOpening = null;
    this.history.push({ notes: this.stepNotes, messages });
  }

  /** A write the run needs failed: the run stops, and ends with this error. */
  failWrite(error: unknown): void {
    this.writeFailure ??= error;
    this.halt.abort(error);
  }

  /** The write that failed, if any. */
  get failedWrite(): unknown {
    return this.writeFailure;
  }

  /** A budget or the workflow's cost cap refused the next call: the run stops there. */
  refuseSpend(reached: LimitReachedPayload): void {
    this.limitStop ??= reached;
  }

  /** The run stopped: resolves once the step being saved is saved (or failed) and its typing sent. */
  async settle(): Promise<void> {
    await this.saving;
    await this.flushTyping();
  }

  /**
   * How the run ends, once it has stopped and settled. `reason` is why it was stopped from
   * outside, `failure` what ended the stream, `aborted` whether the run's own signal was aborted,
   * and `lostLease` whether a failed write means another worker holds the run now.
   */
  end(input: { failure: unknown; reason: StopReason | null; aborted: boolean; lostLease: (error: unknown) => boolean }): JournalEnd {
    const { failure, reason } = input;
    if (reason === "lease_lost" || reason === "shutdown" || input.lostLease(this.writeFailure)) return { kind: "abandon" };
    if (reason === "cancelled" || (failure && input.aborted)) return { kind: "finish", status: "cancelled" };
    const limit = this.limitStop ?? this.stop;
    if (limit && !this.writeFailure) return { kind: "finish", status: "failed", limit };
    const problem = this.writeFailure ?? failure;
    return problem ? { kind: "finish", status: "failed", error: problem } : { kind: "finish", status: "succeeded" };
  }
}
