import type { LanguageModelV4, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import { eq } from "drizzle-orm";
import type { Database } from "@/db";
import { agents } from "@/db/schema";
import { type ResolvedModel, resolveModel } from "@/lib/models/registry";

function usageOf(inputTokens: number, outputTokens: number) {
  return {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 },
  };
}

const usage = usageOf(12, 7);

export function textStep(text: string): LanguageModelV4StreamPart[] {
  return [
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", delta: text },
    { type: "text-end", id: "t" },
    { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
  ];
}

export function toolStep(calls: { id: string; name: string; input: unknown }[], text = ""): LanguageModelV4StreamPart[] {
  return [
    ...(text ? textStep(text).slice(0, 3) : []),
    ...calls.map(
      (call): LanguageModelV4StreamPart => ({
        type: "tool-call",
        toolCallId: call.id,
        toolName: call.name,
        input: JSON.stringify(call.input),
      }),
    ),
    { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage },
  ];
}

/** The same step, reporting other token counts as its usage. */
export function withUsage(parts: LanguageModelV4StreamPart[], inputTokens: number, outputTokens: number): LanguageModelV4StreamPart[] {
  return parts.map((part) => (part.type === "finish" ? { ...part, usage: usageOf(inputTokens, outputTokens) } : part));
}

/**
 * A model that plays the given steps in order within each run (step n is chosen by the
 * number of assistant turns already in the prompt), and records what it was sent. `gate`
 * holds back every call; `stepGates[n]` holds back the calls of step n.
 */
export function scriptedSteps(
  steps: LanguageModelV4StreamPart[][],
  options: { gate?: Promise<void>; stepGates?: Record<number, Promise<void>> } = {},
) {
  return new MockLanguageModelV4({
    doStream: async (call) => {
      await options.gate;
      const done = call.prompt.filter((message) => message.role === "assistant").length;
      await options.stepGates?.[done];
      return { stream: convertArrayToReadableStream(steps[Math.min(done, steps.length - 1)]!) };
    },
  });
}

/** A release handle for models that must wait until the test lets them go. */
export function gate() {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { promise, release };
}

/**
 * Resolves `mock:<name>` to the given models and everything else to the offline script
 * model at full speed.
 */
export function mockResolver(models: Record<string, LanguageModelV4>) {
  return (spec: string): ResolvedModel => {
    if (spec.startsWith("mock:")) {
      const model = models[spec.slice("mock:".length)];
      if (!model) throw new Error(`No mock model ${spec}`);
      return { model, provider: "script", modelId: spec, spec, scripted: true };
    }
    return resolveModel(spec, { scriptPaceMs: 0 });
  };
}

export async function setAgentModel(database: Database, agentId: string, model: string) {
  await database.db.update(agents).set({ model }).where(eq(agents.id, agentId));
}
