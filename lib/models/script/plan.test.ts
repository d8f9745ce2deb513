import { describe, expect, it } from "vitest";
import { MOODS, beatsOf, scenesOf, sparksOf } from "./moods";
import { short } from "./plan";

describe("short", () => {
  it("cuts between words, never inside one", () => {
    expect(short("Writing a melancholic verse about rain on a city window at night", 40)).toBe("Writing a melancholic verse about rain…");
    expect(short("Tiny", 40)).toBe("Tiny");
    expect(short("Supercalifragilisticexpialidocious words", 12)).toBe("Supercalifr…");
  });
});

describe("the offline model's material", () => {
  it("has far more sparks, scenes and story beats than a ten-minute session uses, none repeated", () => {
    for (const mood of MOODS) {
      for (const pool of [sparksOf(mood), scenesOf(mood), beatsOf(mood, "opening"), beatsOf(mood, "turn"), beatsOf(mood, "ending")]) {
        expect(pool.length).toBeGreaterThanOrEqual(8);
        expect(new Set(pool).size).toBe(pool.length);
      }
    }
  });
});
