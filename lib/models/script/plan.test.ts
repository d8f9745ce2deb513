import { describe, expect, it } from "vitest";
import { MOODS, type Mood, beatsOf, chorusesOf, coloursOf, lightOf, scenesOf, sparksOf, versesOf } from "./moods";
import { poolStart, short } from "./plan";

describe("short", () => {
  it("cuts between words, never inside one", () => {
    expect(short("Writing a melancholic verse about rain on a city window at night", 40)).toBe("Writing a melancholic verse about rain…");
    expect(short("Tiny", 40)).toBe("Tiny");
    expect(short("Supercalifragilisticexpialidocious words", 12)).toBe("Supercalifr…");
  });
});

/** Each pool a scripted persona draws from, with how many items one run takes from it. */
const POOLS: { name: string; pool: (mood: Mood) => string[]; need: number }[] = [
  { name: "verse lines", pool: versesOf, need: 4 },
  { name: "chorus lines", pool: chorusesOf, need: 4 },
  { name: "sparks", pool: sparksOf, need: 3 },
  { name: "scenes", pool: scenesOf, need: 1 },
  { name: "light", pool: lightOf, need: 1 },
  { name: "colours", pool: coloursOf, need: 1 },
  ...(["opening", "turn", "ending"] as const).map((part) => ({
    name: `${part} beats`,
    pool: (mood: Mood) => beatsOf(mood, part),
    need: 1,
  })),
];

/** How many nodes the demo's canvas holds after ten minutes of watching, with room to spare. */
const TEN_MINUTES_OF_NODES = 50;

describe("the offline model's material", () => {
  it("has far more of everything than ten minutes of watching uses, none repeated", () => {
    for (const mood of MOODS) {
      for (const { pool } of POOLS) {
        const items = pool(mood);
        expect(items.length).toBeGreaterThanOrEqual(50);
        expect(new Set(items).size).toBe(items.length);
      }
    }
  });

  it("gives every run of a persona a share of each pool of its own, for ten minutes of watching", () => {
    // A persona's runs cannot see each other's work once the canvas outgrows the prompt; they
    // only see the canvas grow, by two nodes or more for each of their own runs.
    const overlaps: string[] = [];
    for (const mood of MOODS) {
      for (const { name, pool, need } of POOLS) {
        const length = pool(mood).length;
        const share = (nodes: number) => Array.from({ length: need }, (_, index) => (poolStart(nodes, need, length) + index) % length);
        for (let earlier = 0; earlier <= TEN_MINUTES_OF_NODES; earlier++) {
          for (let later = earlier + 2; later <= TEN_MINUTES_OF_NODES; later++) {
            if (share(later).some((index) => share(earlier).includes(index)))
              overlaps.push(`${mood.name} ${name}: ${earlier} and ${later} nodes`);
          }
        }
      }
    }
    expect(overlaps).toEqual([]);
  });

  it("writes generated lines that read right for every image", () => {
    for (const mood of MOODS) {
      for (const { pool } of POOLS) {
        for (const item of pool(mood)) expect(item).not.toMatch(/\bthe (a|an|the) |\b(a|an) the\b|undefined|\s{2}/i);
      }
    }
  });
});
