import { afterEach, beforeEach, vi } from "vitest";
import type { Env } from "@/lib/env";
import { HOSTED_SERVICES } from "@/lib/models/agent-endpoint";

/**
 * Every variable that configures a model provider on the server, or lets imported teams' agents
 * use a key of their own: with none set, only the offline model runs.
 */
const PROVIDER_VARIABLES = [
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_BASE_URL",
  "GOOGLE_GENERATIVE_AI_API_KEY",
  "GOOGLE_BASE_URL",
  "OPENAI_COMPATIBLE_BASE_URL",
  "OPENAI_COMPATIBLE_API_KEY",
  "PARLEY_IMPORT_KEY_VARIABLES",
] as const satisfies readonly (keyof Env)[];

/** The variables an imported team may name for a known hosted service without the operator listing them. */
const HOSTED_KEY_VARIABLES = Object.values(HOSTED_SERVICES).map((service) => service.keyEnv);

/**
 * Runs each test of the file on a server with only the offline model, whatever the shell that
 * runs the tests has set: no provider's key or endpoint, no key variable imported teams may name
 * (a hosted service's included), and room creation left to its default
 * (`auto`, which then lets anyone create rooms). A test may still set any of them itself; each
 * test ends with the shell's values back.
 */
export function useOfflineServer(): void {
  beforeEach(() => {
    for (const name of [...PROVIDER_VARIABLES, ...HOSTED_KEY_VARIABLES]) vi.stubEnv(name, undefined);
    vi.stubEnv("PARLEY_ROOM_CREATION", undefined);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });
}
