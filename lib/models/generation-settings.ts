import { z } from "zod";
import type { AgentModelOptions } from "@/db/schema";
import type { ProviderName } from "./registry";

/**
 * An agent's own generation settings, kept beside its endpoint in its model options: every
 * model call the agent makes (its runs and its shadow's answers) passes them to the AI SDK.
 */
const generationSettingsSchema = z.object({
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().min(0).max(1).optional(),
  topK: z.number().int().min(1).optional(),
  maxOutputTokens: z.number().int().min(1).optional(),
  frequencyPenalty: z.number().min(-2).max(2).optional(),
  presencePenalty: z.number().min(-2).max(2).optional(),
  stopSequences: z.array(z.string().min(1)).min(1).optional(),
  seed: z.number().int().optional(),
});
export type GenerationSettings = z.infer<typeof generationSettingsSchema>;
export type GenerationSetting = keyof GenerationSettings;

/** How each setting is named in a team's configuration file (and on the import's result). */
export const SETTING_FILE_KEYS: Record<GenerationSetting, string> = {
  temperature: "temperature",
  topP: "top_p",
  topK: "top_k",
  maxOutputTokens: "max_tokens",
  frequencyPenalty: "frequency_penalty",
  presencePenalty: "presence_penalty",
  stopSequences: "stop",
  seed: "seed",
};

/** An agent's model options with the generation settings beyond those the stored type names. */
export type ModelOptions = AgentModelOptions & GenerationSettings;

/**
 * The settings each provider's model in the AI SDK takes; the others it would ignore with a
 * warning, so an import says so instead. OpenAI's Responses API takes no top-k, penalties,
 * stop sequences or seed; Anthropic no penalties or seed; OpenAI-compatible chat no top-k.
 */
export const SUPPORTED_SETTINGS: Record<ProviderName, readonly GenerationSetting[]> = {
  script: ["temperature", "topP", "topK", "maxOutputTokens", "frequencyPenalty", "presencePenalty", "stopSequences", "seed"],
  openai: ["temperature", "topP", "maxOutputTokens"],
  anthropic: ["temperature", "topP", "topK", "maxOutputTokens", "stopSequences"],
  google: ["temperature", "topP", "topK", "maxOutputTokens", "frequencyPenalty", "presencePenalty", "stopSequences", "seed"],
  "openai-compatible": ["temperature", "topP", "maxOutputTokens", "frequencyPenalty", "presencePenalty", "stopSequences", "seed"],
  // A remote A2A agent runs its own model with its own settings.
  a2a: [],
};

/**
 * The generation settings an agent's stored options hold, for a model call; the endpoint and
 * key are not among them. Options that do not read as settings (changed by hand) give none,
 * rather than failing the agent's every call.
 */
export function generationSettings(options: AgentModelOptions): GenerationSettings {
  const read = generationSettingsSchema.safeParse(options);
  return read.success ? read.data : {};
}
