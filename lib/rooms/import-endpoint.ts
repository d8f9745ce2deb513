import type { Env } from "@/lib/env";
import { normalizeEndpoint } from "@/lib/models/endpoint-address";
import { type ConfigFile, type Path, optionalText } from "./config-file";

/** `${NAME}` or `$NAME`: a value the file leaves to an environment variable of the server. */
export const ENV_REFERENCE = /^\$\{?([A-Z_][A-Z0-9_]*)\}?$/;

/** What reading an agent's endpoints, keys and tools adds to the result, and the rules they are read under. */
export interface Findings {
  notes: string[];
  ignored: string[];
  hostsToResolve: { hostname: string; key: string; line: number | null }[];
  admin: boolean;
  env: Env;
  /** Where the variables a file names are read (the process environment). */
  secrets: Record<string, string | undefined>;
}

/** An endpoint a file names: its address, and the variable it was read from when the file wrote `${NAME}`. */
export interface NamedEndpoint {
  url: string;
  variable?: string;
  /** As people are shown it: `${NAME}` for one read from a variable, whose value stays on the server. */
  shown: string;
}

/** Why a variable may not be read for an imported team, or null: only those the operator listed. */
export function variableRefusal(name: string, env: Env): string | null {
  return env.PARLEY_IMPORT_KEY_VARIABLES.includes(name)
    ? null
    : `${name} is not a variable this server lets imported teams read; list it in PARLEY_IMPORT_KEY_VARIABLES on the server to allow it.`;
}

/**
 * The endpoint at `at`, written as an address or as `${NAME}`: a variable the operator listed
 * (PARLEY_IMPORT_KEY_VARIABLES, as for keys), set on the server and holding an http(s) address,
 * read now. Refusals never quote a variable's value: it may be a secret.
 */
export function readEndpoint(file: ConfigFile, at: Path, found: Findings): NamedEndpoint | undefined {
  const text = file.read(at, optionalText);
  if (text === undefined) return undefined;
  const reference = text.trim().match(ENV_REFERENCE);
  if (!reference) {
    const endpoint = normalizeEndpoint(text);
    if ("error" in endpoint) file.fail(at, endpoint.error);
    return { url: endpoint.url, shown: endpoint.url };
  }
  const name = reference[1]!;
  const refusal = variableRefusal(name, found.env);
  if (refusal) file.fail(at, refusal);
  const value = found.secrets[name];
  if (!value) file.fail(at, `${name} is not set on the server; set it to the endpoint's address, or write the address in the file.`);
  const endpoint = normalizeEndpoint(value);
  if ("error" in endpoint) {
    file.fail(
      at,
      `${name} on the server does not hold an endpoint: it must be an http(s) address without a user name, password, query or fragment.`,
    );
  }
  return { url: endpoint.url, variable: name, shown: `\${${name}}` };
}
