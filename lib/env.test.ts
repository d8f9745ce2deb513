import { describe, expect, it } from "vitest";
import { getEnv } from "./env";

describe("getEnv", () => {
  it("reads Parley's variables, with their defaults, and ignores everything else", () => {
    const env = getEnv({ PARLEY_SCRIPT_PACE_MS: "10", UNRELATED: "x", PARLEY_DATA_DIR: "" } as NodeJS.ProcessEnv);
    expect(env.PARLEY_SCRIPT_PACE_MS).toBe(10);
    expect(env.PARLEY_DATA_DIR).toBe(".data");
    expect(env).not.toHaveProperty("UNRELATED");
  });

  it("sees a variable change at once, while the same variables give the same settings", () => {
    const source = { PARLEY_SCRIPT_PACE_MS: "10" } as NodeJS.ProcessEnv;
    const first = getEnv(source);
    expect(getEnv({ ...source, UNRELATED: "changed" } as NodeJS.ProcessEnv)).toBe(first);
    source.PARLEY_SCRIPT_PACE_MS = "20";
    expect(getEnv(source).PARLEY_SCRIPT_PACE_MS).toBe(20);
    delete source.PARLEY_SCRIPT_PACE_MS;
    expect(getEnv(source).PARLEY_SCRIPT_PACE_MS).toBe(45);
  });

  it("refuses a bad value, naming the variable, every time it is read", () => {
    const source = { PARLEY_SCRIPT_PACE_MS: "fast" } as NodeJS.ProcessEnv;
    expect(() => getEnv(source)).toThrow(/PARLEY_SCRIPT_PACE_MS/);
    expect(() => getEnv(source)).toThrow(/PARLEY_SCRIPT_PACE_MS/);
  });
});
