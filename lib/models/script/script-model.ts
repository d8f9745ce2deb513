import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { ownValue } from "@/lib/own-value";
import { chooseMood, chooseSubject, chooseTopic, GENERALIST_PLAN, type PlanContext, type PlannedStep, PLANS, shadowAnswer } from "./plans";
import { hashString, SeededRandom } from "./random";
import { promptSectionsOf, readPrompt, type ScriptReading, shadowSectionsOf } from "./read-prompt";
import { helpAnswer, isMessageRun, messageStep, messageTag } from "./teamwork";
import { buildReviewStep } from "./build-review";
import { brainstormStep } from "./brainstorm/brainstorm-step";
import { moodAbout } from "./topic";

export interface ScriptModelOptions {
  /** `script:<name>`; the persona named in the system prompt wins, the name is a fallback. */
  name: string;
  /** Pause between streamed words, so spectators watch the agent type. */
  paceMs?: number;
  /** Pause before answering at all (a fixed think time, for benchmarks and tests). */
  latencyMs?: number;
}

interface ScriptDecision extends PlannedStep {
  finishReason: "stop" | "tool-calls";
}

function callId(step: number, index: number, tag: string): string {
  return `call-${step}-${index}:${tag}`;
}

function tools(options: LanguageModelV4CallOptions): Set<string> {
  return new Set((options.tools ?? []).filter((tool) => tool.type === "function").map((tool) => tool.name));
}

/**
 * Decides a scripted persona's next step from the prompt alone: who it is, what it was
 * asked, what the board and canvas hold, and what it has already done in this run.
 * Deterministic for a given seed and prompt.
 */
function decideNextStep(reading: ScriptReading, toolNames: Set<string>, seed: number, fallbackPersona: string): ScriptDecision {
  const persona = reading.persona || fallbackPersona;
  if (reading.shadow) {
    const rng = new SeededRandom(hashString(`${seed}|${persona}|shadow|${reading.shadow.question}`));
    return { text: shadowAnswer({ ...reading, persona }, rng), calls: [], finishReason: "stop" };
  }
  const pastCalls = reading.steps.flatMap((step) => step.calls);
  const staged =
    brainstormStep({ ...reading, persona }, toolNames, pastCalls) ?? buildReviewStep({ ...reading, persona }, toolNames, pastCalls);
  if (staged) {
    const stepNumber = reading.steps.length;
    return {
      text: staged.text,
      calls: staged.calls.map((call, callIndex) => ({ ...call, tag: callId(stepNumber, callIndex, call.tag) })),
      finishReason: staged.calls.length ? "tool-calls" : "stop",
    };
  }
  const builders = ownValue(PLANS, persona) ?? GENERALIST_PLAN;
  // What is on the canvas is part of the seed: the same prompt on a fuller canvas writes something new.
  const base = hashString(
    `${seed}|${persona}|${reading.task}|${reading.why}|${reading.referenced.map((ref) => ref.text).join("|")}|${reading.canvas.length}|${reading.canvas.at(-1)?.id ?? ""}`,
  );
  const topic = chooseTopic(reading);
  const chosen = chooseMood(reading, new SeededRandom(base));
  // The mood's imagery, with what the task is about first among it.
  const mood = moodAbout(chosen.mood, topic);
  const palette = chosen.palette;
  const subject = chooseSubject(reading, mood, topic);
  const request = reading.requested || reading.requests.length > 0 ? (reading.requests[0] ?? null) : null;
  const context: Omit<PlanContext, "rng"> = {
    reading: { ...reading, persona },
    tools: toolNames,
    mood,
    palette,
    subject,
    topic,
    request,
    past: (tag) => pastCalls.find((call) => call.id.endsWith(`:${tag}`)),
    createdNodes: () =>
      pastCalls
        .filter((call) => call.toolName === "create_node" && !call.failed)
        .map((call) => (call.output as { node: { id: string; x: number; y: number; text: string } }).node)
        .filter(Boolean),
  };

  const stepNumber = reading.steps.length;
  const decided = (step: PlannedStep): ScriptDecision => ({
    text: step.text,
    calls: step.calls.map((call, callIndex) => ({ ...call, tag: callId(stepNumber, callIndex, call.tag) })),
    finishReason: step.calls.length ? "tool-calls" : "stop",
  });
  const rng = new SeededRandom(base + stepNumber * 104_729);
  // A help request's run answers in one reply.
  const answer = stepNumber === 0 ? helpAnswer({ ...context, rng }) : null;
  if (answer) return decided(answer);
  // Messages come first: each is acted on in the next step, once.
  const unanswered = reading.messages.find((message) => !pastCalls.some((call) => call.id.endsWith(`:${messageTag(message)}`)));
  const acting = unanswered ? messageStep({ ...context, rng }, unanswered) : null;
  if (acting) return decided(acting);
  if (isMessageRun(reading)) {
    return {
      text: stepNumber > 0 ? "Done — what was asked is on the canvas." : "There was nothing left to act on.",
      calls: [],
      finishReason: "stop",
    };
  }
  // The plan's own steps, counted without the steps that acted on messages.
  const planSteps = reading.steps.filter((step) => !step.calls.some((call) => call.id.includes(":msg-"))).length;

  let produced = 0;
  for (let index = 0; index < builders.length; index++) {
    const step = builders[index]!({ ...context, rng: new SeededRandom(base + index * 7919) });
    if (!step) continue;
    if (produced === planSteps) return decided(step);
    produced += 1;
  }
  return { text: "", calls: [], finishReason: "stop" };
}

function usageFor(options: LanguageModelV4CallOptions, decision: ScriptDecision): LanguageModelV4Usage {
  const promptChars = JSON.stringify(options.prompt).length;
  const outputChars = decision.text.length + JSON.stringify(decision.calls.map((call) => call.input)).length;
  const input = Math.ceil(promptChars / 4);
  const output = Math.ceil(outputChars / 4);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error("aborted"));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Splits text into word-sized chunks that keep their spacing. */
function chunks(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/**
 * The offline model: an AI SDK language model that plays Parley's personas without a
 * network. It reads the prompt Parley builds, follows its persona's plan one step per
 * call, streams text at a readable pace and reports token usage.
 */
class ScriptLanguageModel implements LanguageModelV4 {
  readonly specificationVersion = "v4" as const;
  readonly provider = "script";
  readonly modelId: string;
  readonly supportedUrls = {};

  constructor(private readonly options: ScriptModelOptions) {
    this.modelId = options.name;
  }

  decide(options: LanguageModelV4CallOptions): ScriptDecision {
    const reading = readPrompt(options.prompt, promptSectionsOf(options.providerOptions), shadowSectionsOf(options.providerOptions));
    return decideNextStep(reading, tools(options), options.seed ?? 1, this.options.name);
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    await sleep(this.options.latencyMs ?? 0, options.abortSignal);
    const decision = this.decide(options);
    const content: LanguageModelV4Content[] = [];
    if (decision.text) content.push({ type: "text", text: decision.text });
    for (const call of decision.calls) {
      content.push({ type: "tool-call", toolCallId: call.tag, toolName: call.toolName, input: JSON.stringify(call.input) });
    }
    return {
      content,
      finishReason: { unified: decision.finishReason, raw: decision.finishReason },
      usage: usageFor(options, decision),
      warnings: [],
      response: { id: `script-${Date.now()}`, modelId: this.modelId, timestamp: new Date() },
    };
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const decision = this.decide(options);
    const pace = this.options.paceMs ?? 0;
    const latency = this.options.latencyMs ?? 0;
    const signal = options.abortSignal;
    const usage = usageFor(options, decision);
    const modelId = this.modelId;
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      async start(controller) {
        try {
          controller.enqueue({ type: "stream-start", warnings: [] });
          controller.enqueue({ type: "response-metadata", id: `script-${Date.now()}`, modelId, timestamp: new Date() });
          await sleep(latency, signal);
          if (decision.text) {
            controller.enqueue({ type: "text-start", id: "text-0" });
            for (const chunk of chunks(decision.text)) {
              await sleep(pace, signal);
              controller.enqueue({ type: "text-delta", id: "text-0", delta: chunk });
            }
            controller.enqueue({ type: "text-end", id: "text-0" });
          }
          for (const call of decision.calls) {
            const input = JSON.stringify(call.input);
            controller.enqueue({ type: "tool-input-start", id: call.tag, toolName: call.toolName });
            controller.enqueue({ type: "tool-input-delta", id: call.tag, delta: input });
            controller.enqueue({ type: "tool-input-end", id: call.tag });
            controller.enqueue({ type: "tool-call", toolCallId: call.tag, toolName: call.toolName, input });
          }
          controller.enqueue({
            type: "finish",
            usage,
            finishReason: { unified: decision.finishReason, raw: decision.finishReason },
          });
          controller.close();
        } catch (error) {
          controller.enqueue({ type: "error", error });
          controller.close();
        }
      },
    });
    return { stream };
  }
}

export function createScriptModel(options: ScriptModelOptions): ScriptLanguageModel {
  return new ScriptLanguageModel(options);
}
