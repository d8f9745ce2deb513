import { getEnv } from "@/lib/env";
import { type ModelResolver, resolveModel } from "@/lib/models/registry";

/**
 * Resolves models as a server configured with `server` (see `startChatServer`) as its
 * OpenAI-compatible provider would (`openai-compatible:<model>`); the offline model streams
 * at full speed.
 */
export function standInResolver(server: { baseURL: string }): ModelResolver {
  const env = { ...getEnv(), OPENAI_COMPATIBLE_BASE_URL: server.baseURL, OPENAI_COMPATIBLE_API_KEY: "k" };
  return (spec, agent) => resolveModel(spec, { env, scriptPaceMs: 0, agent });
}
