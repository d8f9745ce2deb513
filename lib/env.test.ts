import { describe, expect, it } from "vitest";
import { getEnv } from "./env";

/** An environment holding `values` (and the NODE_ENV every process has). */
function environment(values: Record<string, string>): NodeJS.ProcessEnv {
  return { NODE_ENV: "test", ...values };
}

describe("getEnv", () => {
  it("reads Parley's variables, with their defaults, and ignores everything else", () => {
    const env = getEnv(environment({ PARLEY_SCRIPT_PACE_MS: "10", UNRELATED: "x", PARLEY_DATA_DIR: "" }));
    expect(env.PARLEY_SCRIPT_PACE_MS).toBe(10);
    expect(env.PARLEY_DATA_DIR).toBe(".data");
    expect(env).not.toHaveProperty("UNRELATED");
  });

  it("sees a variable change at once, while the same variables give the same settings", () => {
    const source = environment({ PARLEY_SCRIPT_PACE_MS: "10" });
    const first = getEnv(source);
    expect(getEnv({ ...source, UNRELATED: "changed" })).toBe(first);
    source.PARLEY_SCRIPT_PACE_MS = "20";
    expect(getEnv(source).PARLEY_SCRIPT_PACE_MS).toBe(20);
    delete source.PARLEY_SCRIPT_PACE_MS;
    expect(getEnv(source).PARLEY_SCRIPT_PACE_MS).toBe(45);
  });

  it("refuses a bad value, naming the variable, every time it is read", () => {
    const source = environment({ PARLEY_SCRIPT_PACE_MS: "fast" });
    expect(() => getEnv(source)).toThrow(/PARLEY_SCRIPT_PACE_MS/);
    expect(() => getEnv(source)).toThrow(/PARLEY_SCRIPT_PACE_MS/);
  });
});
