import { describe, expect, it } from "vitest";
import { whoseTurn } from "./whose-turn";

const team = [
  { id: "c", persona: "curator", position: 0 },
  { id: "s", persona: "songwriter", position: 1 },
  { id: "p", persona: "scene-painter", position: 2 },
];
const order = ["songwriter", "scene-painter"];

describe("whoseTurn", () => {
  it("takes the template's personas only, one that never ran first, in the template's order", () => {
    expect(whoseTurn(team, order, {})?.id).toBe("s");
    expect(whoseTurn(team, order, { s: 10 })?.id).toBe("p");
    expect(whoseTurn(team, order, { s: 10, p: 5 })?.id).toBe("p");
  });

  it("breaks a tie of last runs by the turn order, then by id, whatever order the team comes in", () => {
    expect(whoseTurn(team, order, { s: 7, p: 7 })?.id).toBe("s");
    expect(whoseTurn([...team].reverse(), order, { s: 7, p: 7 })?.id).toBe("s");
    const twins = [
      { id: "b", persona: "x", position: 1 },
      { id: "a", persona: "y", position: 1 },
    ];
    expect(whoseTurn(twins, [], { a: 3, b: 3 })?.id).toBe("a");
  });

  it("takes the whole team by position when none of it is in the turn order, and nobody from an empty team", () => {
    expect(whoseTurn(team, ["lighthouse-keeper"], {})?.id).toBe("c");
    expect(whoseTurn(team, [], { c: 9 })?.id).toBe("s");
    expect(whoseTurn([], order, {})).toBeNull();
  });
});
