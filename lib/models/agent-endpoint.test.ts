import { describe, expect, it } from "vitest";
import { getEnv } from "@/lib/env";
import {
  agentKeyVariable,
  callsServerEndpoint,
  endpointStanding,
  hostAddressRefusal,
  hostedServiceAt,
  isPrivateAddress,
  keyVariableRefusal,
  ownKeyVariable,
  shownEndpoint,
} from "./agent-endpoint";
import { endpointUnder, normalizeEndpoint } from "./endpoint-address";

const bare = getEnv({} as NodeJS.ProcessEnv);
const listing = getEnv({
  NODE_ENV: "test",
  PARLEY_IMPORT_ENDPOINTS: "http://localhost:11434/v1/,https://llm.example.com",
  PARLEY_IMPORT_KEY_VARIABLES: "TEAM_KEY, OTHER_KEY",
  OPENAI_COMPATIBLE_BASE_URL: "http://10.0.0.9:8000/v1",
} as NodeJS.ProcessEnv);

describe("the settings that list what imported agents may name", () => {
  it("are empty by default and read as trimmed lists", () => {
    expect(bare.PARLEY_IMPORT_KEY_VARIABLES).toEqual([]);
    expect(bare.PARLEY_IMPORT_ENDPOINTS).toEqual([]);
    expect(listing.PARLEY_IMPORT_KEY_VARIABLES).toEqual(["TEAM_KEY", "OTHER_KEY"]);
    expect(listing.PARLEY_IMPORT_ENDPOINTS).toEqual(["http://localhost:11434/v1", "https://llm.example.com"]);
  });

  it("refuse names that are not variables, the admin's token and the database's address, and endpoints that are not plain http(s)", () => {
    const invalid = (variables: Record<string, string>) => () => getEnv({ NODE_ENV: "test", ...variables });
    expect(invalid({ PARLEY_IMPORT_KEY_VARIABLES: "GROQ_API_KEY,not-a-name" })).toThrow(
      /PARLEY_IMPORT_KEY_VARIABLES\.1: must list environment variable names/,
    );
    expect(invalid({ PARLEY_IMPORT_KEY_VARIABLES: "ADMIN_TOKEN" })).toThrow(/ADMIN_TOKEN can never be an agent's key/);
    expect(invalid({ PARLEY_IMPORT_KEY_VARIABLES: "DATABASE_URL" })).toThrow(/DATABASE_URL can never be an agent's key/);
    expect(invalid({ PARLEY_IMPORT_ENDPOINTS: "ftp://files.example.com" })).toThrow(
      /PARLEY_IMPORT_ENDPOINTS\.0: ftp:\/\/files\.example\.com: must be an http\(s\) address/,
    );
    expect(invalid({ PARLEY_IMPORT_ENDPOINTS: "https://user:pw@llm.example.com" })).toThrow(/must not carry a user name or password/);
  });
});

describe("endpoint addresses", () => {
  it("are kept as origin and path, without a trailing slash", () => {
    expect(normalizeEndpoint("HTTP://LLM.Example.com:80/v1//")).toEqual({ url: "http://llm.example.com/v1" });
    expect(normalizeEndpoint("https://llm.example.com/a/../v1/")).toEqual({ url: "https://llm.example.com/v1" });
    expect(normalizeEndpoint("file:///etc/passwd")).toEqual({ error: 'must be an http(s) address, not "file:///etc/passwd"' });
    expect(normalizeEndpoint("https://llm.example.com/v1#x")).toEqual({ error: expect.stringMatching(/without a query/) });
  });

  it("lie under a listed prefix only on the same scheme, host and port, segment by segment", () => {
    expect(endpointUnder("http://localhost:11434/v1", "http://localhost:11434/v1/")).toBe(true);
    expect(endpointUnder("http://localhost:11434/v1/team", "http://localhost:11434/v1")).toBe(true);
    expect(endpointUnder("https://llm.example.com/anything", "https://llm.example.com")).toBe(true);
    expect(endpointUnder("http://localhost:11434/v10", "http://localhost:11434/v1")).toBe(false);
    expect(endpointUnder("https://localhost:11434/v1", "http://localhost:11434/v1")).toBe(false);
    expect(endpointUnder("http://localhost:11435/v1", "http://localhost:11434/v1")).toBe(false);
    expect(endpointUnder("https://llm.example.com.evil.net/v1", "https://llm.example.com")).toBe(false);
    expect(endpointUnder("https://llm.example.com@evil.net/v1", "https://llm.example.com")).toBe(false);
  });

  it("on loopback, link-local, private and reserved ranges are private, however they are written", () => {
    const privateHosts = [
      "127.0.0.1",
      "127.8.9.10",
      "localhost",
      "api.localhost",
      "10.0.0.1",
      "172.16.5.4",
      "172.31.255.255",
      "192.168.0.10",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "[::1]",
      "[::]",
      "[fe80::1]",
      "[fd12:3456::1]",
      "[::ffff:127.0.0.1]",
      "[::ffff:a9fe:a9fe]",
    ];
    for (const host of privateHosts) expect([host, isPrivateAddress(host)]).toEqual([host, true]);
    // Other spellings of 127.0.0.1, as a URL parses them.
    for (const url of ["http://2130706433/", "http://0x7f.0.0.1/", "http://127.1/"])
      expect(isPrivateAddress(new URL(url).hostname)).toBe(true);
    for (const host of ["8.8.8.8", "172.32.0.1", "203.0.113.7", "[2001:4860:4860::8888]", "llm.example.com"])
      expect([host, isPrivateAddress(host)]).toEqual([host, false]);
  });

  it("stand as the server's, a known service's, listed, private or other", () => {
    expect(endpointStanding("openai-compatible", "http://10.0.0.9:8000/v1", listing)).toBe("server");
    expect(endpointStanding("openai", "http://10.0.0.9:8000/v1", listing)).toBe("private");
    expect(endpointStanding("openai", "https://api.openai.com/v1", bare)).toBe("server");
    expect(endpointStanding("openai-compatible", "https://api.x.ai/v1", bare)).toBe("hosted");
    expect(endpointStanding("openai-compatible", "http://localhost:11434/v1/team", listing)).toBe("listed");
    expect(endpointStanding("openai-compatible", "http://localhost:11434/v1", bare)).toBe("private");
    expect(endpointStanding("anthropic", "https://evil.example.net/v1", bare)).toBe("other");
  });
});

describe("host names an admin's import names", () => {
  const resolving = (addresses: string[]) => async () => addresses.map((address) => ({ address }));

  it("must resolve to public addresses only", async () => {
    expect(await hostAddressRefusal("llm.example.com", resolving(["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]))).toBeNull();
    expect(await hostAddressRefusal("metadata.internal", resolving(["93.184.215.14", "169.254.169.254"]))).toBe(
      "metadata.internal resolves to 169.254.169.254, a loopback, link-local or private address",
    );
    expect(await hostAddressRefusal("rebind.example", resolving(["::1"]))).toMatch(/resolves to ::1/);
    expect(await hostAddressRefusal("nowhere.invalid", async () => Promise.reject(new Error("ENOTFOUND")))).toBe(
      "nowhere.invalid could not be resolved",
    );
    expect(await hostAddressRefusal("empty.example", resolving([]))).toBe("empty.example could not be resolved");
  });

  it("are not looked up when they are addresses", async () => {
    let asked = 0;
    const count = async () => {
      asked++;
      return [];
    };
    expect(await hostAddressRefusal("203.0.113.7", count)).toBeNull();
    expect(await hostAddressRefusal("[2001:db8::1]", count)).toBeNull();
    expect(asked).toBe(0);
  });
});

describe("key variables", () => {
  it("are read only when listed, or when they are a known service's own and go to that service", () => {
    expect(keyVariableRefusal("TEAM_KEY", "https://anywhere.example.com/v1", listing)).toBeNull();
    expect(keyVariableRefusal("XAI_API_KEY", "https://api.x.ai/v1", bare)).toBeNull();
    expect(keyVariableRefusal("XAI_API_KEY", "https://api.groq.com/openai/v1", bare)).toMatch(
      /^XAI_API_KEY is not a key variable this server lets agents use/,
    );
    expect(keyVariableRefusal("XAI_API_KEY", undefined, bare)).toMatch(/XAI_API_KEY is not a key variable/);
    expect(keyVariableRefusal("OPENAI_API_KEY", "https://evil.example.net/v1", bare)).toMatch(/OPENAI_API_KEY is not a key variable/);
  });

  it("go with an agent's calls: its own, else the server's only at the server's endpoint", () => {
    expect(agentKeyVariable("openai", {}, bare)).toEqual({ variable: "OPENAI_API_KEY", server: true });
    expect(agentKeyVariable("openai", { baseUrl: "https://api.openai.com/v1/" }, bare)).toEqual({
      variable: "OPENAI_API_KEY",
      server: true,
    });
    expect(agentKeyVariable("openai", { baseUrl: "https://evil.example.net/v1" }, bare)).toBeNull();
    expect(agentKeyVariable("openai-compatible", { baseUrl: "https://api.x.ai/v1", apiKeyEnv: "XAI_API_KEY" }, bare)).toEqual({
      variable: "XAI_API_KEY",
      server: false,
    });
    expect(callsServerEndpoint("openai-compatible", { baseUrl: "https://api.x.ai/v1" }, listing)).toBe(false);
    expect(callsServerEndpoint("openai-compatible", {}, listing)).toBe(true);
  });
});

describe("hostedServiceAt", () => {
  it("knows a service by https on one of its documented hosts, whatever the path", () => {
    expect(hostedServiceAt("https://api.studio.nebius.ai/v1")?.keyEnv).toBe("NEBIUS_API_KEY");
    expect(hostedServiceAt("https://API.Cerebras.ai/v1/")?.keyEnv).toBe("CEREBRAS_API_KEY");
    expect(hostedServiceAt("https://dashscope.aliyuncs.com/compatible-mode/v1")?.label).toBe("DashScope (Qwen)");
    for (const other of [
      "http://api.cerebras.ai/v1",
      "https://api.cerebras.ai:444/v1",
      "https://evil-api.cerebras.ai/v1",
      "nonsense",
      undefined,
    ]) {
      expect(hostedServiceAt(other)).toBeUndefined();
    }
  });

  it("gives an agent calling it that service's variable unless it names its own or calls the server's endpoint", () => {
    const env = getEnv({ NODE_ENV: "test", OPENAI_COMPATIBLE_BASE_URL: "https://openrouter.ai/api/v1" } as NodeJS.ProcessEnv);
    expect(ownKeyVariable("openai-compatible", { baseUrl: "https://api.fireworks.ai/inference/v1" }, env)).toBe("FIREWORKS_API_KEY");
    expect(ownKeyVariable("openai-compatible", { baseUrl: "https://api.fireworks.ai/inference/v1", apiKeyEnv: "MINE" }, env)).toBe("MINE");
    expect(ownKeyVariable("openai-compatible", { baseUrl: "https://openrouter.ai/api/v1" }, env)).toBeNull();
    expect(shownEndpoint({ baseUrl: "https://secret.example.com/v1", baseUrlEnv: "TEAM_URL" })).toBe("${TEAM_URL}");
  });
});
