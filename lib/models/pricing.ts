import type { LanguageModelUsage } from "ai";

/** US dollars per million tokens. Unknown models cost 0 and are flagged as unpriced. */
export interface ModelPrice {
  input: number;
  output: number;
}

/**
 * List prices of the models people commonly point Parley at. Keys are `provider:model`;
 * a key ending in `*` matches any model id with that prefix. A dated snapshot
 * (`gpt-4o-2024-08-06`) costs what its model does.
 */
const PRICE_TABLE: Record<string, ModelPrice> = {
  "openai:gpt-5": { input: 1.25, output: 10 },
  "openai:gpt-5-mini": { input: 0.25, output: 2 },
  "openai:gpt-5-nano": { input: 0.05, output: 0.4 },
  "openai:gpt-4.1": { input: 2, output: 8 },
  "openai:gpt-4.1-mini": { input: 0.4, output: 1.6 },
  "openai:gpt-4o": { input: 2.5, output: 10 },
  "openai:gpt-4o-mini": { input: 0.15, output: 0.6 },
  "anthropic:claude-opus-4*": { input: 15, output: 75 },
  "anthropic:claude-sonnet-4*": { input: 3, output: 15 },
  "anthropic:claude-haiku-4*": { input: 1, output: 5 },
  "anthropic:claude-3-5-haiku*": { input: 0.8, output: 4 },
  "google:gemini-2.5-pro*": { input: 1.25, output: 10 },
  "google:gemini-2.5-flash*": { input: 0.3, output: 2.5 },
  "google:gemini-3-pro*": { input: 2, output: 12 },
  "script:*": { input: 0, output: 0 },
};

/** The date a provider appends to a model id to pin a snapshot: `-2024-08-06` (OpenAI), `-20250514` (Anthropic). */
const SNAPSHOT_DATE = /-(\d{4}-\d{2}-\d{2}|\d{8})$/;

export function priceFor(modelSpec: string): ModelPrice | null {
  if (PRICE_TABLE[modelSpec]) return PRICE_TABLE[modelSpec];
  const undated = modelSpec.replace(SNAPSHOT_DATE, "");
  if (PRICE_TABLE[undated]) return PRICE_TABLE[undated];
  let best: { length: number; price: ModelPrice } | null = null;
  for (const [key, price] of Object.entries(PRICE_TABLE)) {
    if (!key.endsWith("*")) continue;
    const prefix = key.slice(0, -1);
    if (modelSpec.startsWith(prefix) && (!best || prefix.length > best.length)) best = { length: prefix.length, price };
  }
  return best?.price ?? null;
}

/** Cost of one model call in US dollars; 0 when the model has no known price. */
export function costOf(modelSpec: string, inputTokens: number, outputTokens: number): number {
  const price = priceFor(modelSpec);
  if (!price) return 0;
  return (inputTokens * price.input + outputTokens * price.output) / 1_000_000;
}

/** Tokens and cost of one model call as the AI SDK reports its usage (a provider may leave counts out). */
export function usageFigures(
  modelSpec: string,
  usage: Pick<LanguageModelUsage, "inputTokens" | "outputTokens">,
): { inputTokens: number; outputTokens: number; costUsd: number } {
  const inputTokens = usage.inputTokens ?? 0;
  const outputTokens = usage.outputTokens ?? 0;
  return { inputTokens, outputTokens, costUsd: costOf(modelSpec, inputTokens, outputTokens) };
}
