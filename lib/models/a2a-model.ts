import { randomUUID } from "node:crypto";
import { type Message, type Part, Role, type Task, TaskState } from "@a2a-js/sdk";
import { type Client, ClientFactory } from "@a2a-js/sdk/client";
import {
  APICallError,
  type LanguageModelV4,
  type LanguageModelV4CallOptions,
  type LanguageModelV4GenerateResult,
  type LanguageModelV4Prompt,
  type LanguageModelV4StreamPart,
  type LanguageModelV4StreamResult,
  type LanguageModelV4Usage,
} from "@ai-sdk/provider";
import type { RemoteTaskState } from "@/lib/protocol";

/**
 * What Parley asks a remote agent: the newest thing it was told (the request, the question, the
 * person's message), with what came before it in the same turn. Its own system prompt and
 * persona are the remote agent's own; Parley's tools are not offered to it.
 */
function a2aMessageText(prompt: LanguageModelV4Prompt): string {
  const lastUser = [...prompt].reverse().find((message) => message.role === "user");
  if (!lastUser || lastUser.role !== "user") return "";
  return lastUser.content
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("\n")
    .trim();
}

function partsText(parts: readonly Part[]): string {
  return parts
    .map((part) =>
      part.content?.$case === "text" ? part.content.value : part.content?.$case === "data" ? JSON.stringify(part.content.value) : "",
    )
    .filter(Boolean)
    .join("\n");
}

/** A remote task's answer: its artifacts' text, or else its final status message. */
export function taskText(task: Task): string {
  const artifacts = task.artifacts.map((artifact) => partsText(artifact.parts)).filter(Boolean);
  if (artifacts.length) return artifacts.join("\n\n");
  return task.status?.message ? partsText(task.status.message.parts) : "";
}

const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);
const STATE_NAMES: Partial<Record<TaskState, string>> = {
  [TaskState.TASK_STATE_FAILED]: "failed",
  [TaskState.TASK_STATE_CANCELED]: "was cancelled",
  [TaskState.TASK_STATE_REJECTED]: "rejected the task",
  [TaskState.TASK_STATE_INPUT_REQUIRED]: "asked for more input",
  [TaskState.TASK_STATE_AUTH_REQUIRED]: "asked for authentication",
};

/**
 * A remote agent that could not be reached, or whose task did not finish, as the AI SDK's own
 * provider error: the model-call retries (shown in the room) take up a passing failure (no
 * answer from the address), not a task the agent itself failed or rejected.
 */
function remoteAgentError(cardUrl: string, message: string, passing: boolean, cause?: unknown): APICallError {
  return new APICallError({ message, url: cardUrl, requestBodyValues: {}, isRetryable: passing, cause });
}

/** Runs a call to the remote agent, turning a network failure (no answer, a dropped connection) into a passing error. */
async function reaching<T>(cardUrl: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (APICallError.isInstance(error) || (error as Error).name === "AbortError") throw error;
    throw remoteAgentError(cardUrl, `The A2A agent at ${cardUrl} did not answer: ${(error as Error).message}`, true, error);
  }
}

function answerOf(result: Message | Task, cardUrl: string): string {
  if ("messageId" in result) return partsText(result.parts);
  const state = result.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
  if (state !== TaskState.TASK_STATE_COMPLETED) {
    const why = STATE_NAMES[state] ?? "did not finish its task";
    throw remoteAgentError(cardUrl, `The agent at ${cardUrl} ${why}${taskText(result) ? `: ${taskText(result)}` : "."}`, false);
  }
  return taskText(result);
}

function userMessage(text: string): Message {
  return {
    messageId: randomUUID(),
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
    metadata: { from: "parley" },
    extensions: [],
    referenceTaskIds: [],
  };
}

const STATE_WORDS: Record<TaskState, RemoteTaskState> = {
  [TaskState.TASK_STATE_UNSPECIFIED]: "unknown",
  [TaskState.TASK_STATE_SUBMITTED]: "submitted",
  [TaskState.TASK_STATE_WORKING]: "working",
  [TaskState.TASK_STATE_INPUT_REQUIRED]: "input-required",
  [TaskState.TASK_STATE_AUTH_REQUIRED]: "auth-required",
  [TaskState.TASK_STATE_COMPLETED]: "completed",
  [TaskState.TASK_STATE_FAILED]: "failed",
  [TaskState.TASK_STATE_CANCELED]: "canceled",
  [TaskState.TASK_STATE_REJECTED]: "rejected",
  [TaskState.UNRECOGNIZED]: "unknown",
};

/** A remote task's state as the protocol's own words name it. */
function remoteTaskState(state: TaskState | undefined): RemoteTaskState {
  return STATE_WORDS[state ?? TaskState.TASK_STATE_UNSPECIFIED] ?? "unknown";
}

/** The remote agent's own model spends its own money: Parley counts no tokens for it. */
const NO_USAGE: LanguageModelV4Usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

/** How long a remote task that is still working is waited for between looks. */
const POLL_MS = 500;

/**
 * An agent of another system, reached over A2A, playing a teammate's part: every model call
 * Parley makes for it (a run's step, a shadow's answer, a dialogue turn) becomes one A2A message
 * to it, and its reply (a message, or a task's artifacts) the call's text. Streams when its card
 * says it can. The call is bounded as any model call is: its abort signal (the call's timeout)
 * stops the wait, and a failed or unfinished task is an error the run retries visibly.
 */
export class A2ALanguageModel implements LanguageModelV4 {
  readonly specificationVersion = "v4" as const;
  readonly provider = "a2a";
  readonly supportedUrls = {};
  private client: Promise<Client> | null = null;
  /** Told each new state of a remote task a call is waiting on (the room shows it on the teammate's card). */
  onTaskState: ((update: { taskId: string; state: RemoteTaskState }) => void) | null = null;
  private lastReported = "";

  constructor(readonly modelId: string) {}

  private connect(): Promise<Client> {
    // The card is read once per model; a failed read is tried again at the next call.
    this.client ??= new ClientFactory().createFromUrl(this.modelId, "").catch((error: unknown) => {
      this.client = null;
      throw remoteAgentError(this.modelId, `Could not read the agent card at ${this.modelId}: ${(error as Error).message}`, true, error);
    });
    return this.client;
  }

  private report(taskId: string, state: TaskState | undefined): void {
    const update = { taskId, state: remoteTaskState(state) };
    const key = `${update.taskId} ${update.state}`;
    if (!taskId || key === this.lastReported) return;
    this.lastReported = key;
    this.onTaskState?.(update);
  }

  private async send(options: LanguageModelV4CallOptions): Promise<string> {
    const client = await this.connect();
    const text = a2aMessageText(options.prompt);
    const request = { tenant: "", message: userMessage(text), configuration: undefined, metadata: undefined };
    let result = await reaching(this.modelId, () => client.sendMessage(request, { signal: options.abortSignal }));
    if (!("messageId" in result)) this.report(result.id, result.status?.state);
    while (!("messageId" in result) && !TERMINAL.has(result.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED)) {
      const state = result.status?.state;
      if (state === TaskState.TASK_STATE_INPUT_REQUIRED || state === TaskState.TASK_STATE_AUTH_REQUIRED) break;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      options.abortSignal?.throwIfAborted();
      const taskId = result.id;
      result = await reaching(this.modelId, () => client.getTask({ tenant: "", id: taskId }, { signal: options.abortSignal }));
      this.report(result.id, result.status?.state);
    }
    return answerOf(result, this.modelId);
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const text = await this.send(options);
    return {
      content: text ? [{ type: "text", text }] : [],
      finishReason: { unified: "stop", raw: "stop" },
      usage: NO_USAGE,
      warnings: [],
      response: { id: `a2a-${randomUUID()}`, modelId: this.modelId, timestamp: new Date() },
    };
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const client = await this.connect();
    const card = await reaching(this.modelId, () => client.getAgentCard());
    const modelId = this.modelId;
    const streaming = card.capabilities?.streaming === true;
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      start: async (controller) => {
        controller.enqueue({ type: "stream-start", warnings: [] });
        controller.enqueue({ type: "response-metadata", id: `a2a-${randomUUID()}`, modelId, timestamp: new Date() });
        let started = false;
        const say = (delta: string) => {
          if (!delta) return;
          if (!started) controller.enqueue({ type: "text-start", id: "text-0" });
          started = true;
          controller.enqueue({ type: "text-delta", id: "text-0", delta });
        };
        try {
          if (streaming) {
            const request = {
              tenant: "",
              message: userMessage(a2aMessageText(options.prompt)),
              configuration: undefined,
              metadata: undefined,
            };
            let said = "";
            let final: Message | Task | null = null;
            for await (const event of client.sendMessageStream(request, { signal: options.abortSignal })) {
              const payload = event.payload;
              if (payload?.$case === "artifactUpdate" && payload.value.artifact) {
                const chunk = partsText(payload.value.artifact.parts);
                say(said ? `\n${chunk}` : chunk);
                said += chunk;
              } else if (payload?.$case === "message") {
                final = payload.value;
              } else if (payload?.$case === "task") {
                final = payload.value;
                this.report(payload.value.id, payload.value.status?.state);
              }
              if (payload?.$case === "statusUpdate") this.report(payload.value.taskId, payload.value.status?.state);
              if (payload?.$case === "statusUpdate" && payload.value.status && TERMINAL.has(payload.value.status.state)) {
                if (payload.value.status.state !== TaskState.TASK_STATE_COMPLETED) {
                  const why = STATE_NAMES[payload.value.status.state] ?? "did not finish its task";
                  throw remoteAgentError(modelId, `The agent at ${modelId} ${why}.`, false);
                }
                if (!said && payload.value.status.message) say(partsText(payload.value.status.message.parts));
              }
            }
            if (!said && final) say(answerOf(final, modelId));
          } else {
            say(await this.send(options));
          }
          if (started) controller.enqueue({ type: "text-end", id: "text-0" });
          controller.enqueue({ type: "finish", usage: NO_USAGE, finishReason: { unified: "stop", raw: "stop" } });
        } catch (error) {
          controller.enqueue({ type: "error", error });
        }
        controller.close();
      },
    });
    return { stream };
  }
}
