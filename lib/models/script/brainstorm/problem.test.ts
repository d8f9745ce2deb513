import { describe, expect, it } from "vitest";
import { fill, readProblem } from "./problem";

describe("readProblem", () => {
  it("reads the goal, topic and people of a how-might-we question", () => {
    expect(readProblem("How might we cut onboarding time for new engineers?")).toMatchObject({
      goal: "cut onboarding time for new engineers",
      verb: "cut",
      object: "onboarding time",
      topic: "onboarding",
      who: "new engineers",
    });
  });

  it("reads a place, a group persuaded to act, and a thing to become", () => {
    expect(readProblem("Reduce food waste in our office cafeteria")).toMatchObject({
      topic: "food waste",
      place: "our office cafeteria",
      who: "people in our office cafeteria",
    });
    expect(readProblem("How can we get more people to cycle to work?")).toMatchObject({ topic: "cycling to work", who: "people" });
    expect(readProblem("How might we make our weekly meetings shorter?")).toMatchObject({
      topic: "weekly meetings",
      who: "people involved",
    });
  });

  it("takes only people as who it is for, not a thing", () => {
    expect(readProblem("Build a web scraper for product prices")).toMatchObject({ topic: "web scraper", who: "people involved" });
  });

  it("fills a template with the problem's words", () => {
    expect(fill("{Who} finish {topic} faster", readProblem("How might we cut onboarding time for new engineers?"))).toBe(
      "New engineers finish onboarding faster",
    );
  });
});
