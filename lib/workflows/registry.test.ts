import { describe, expect, it } from "vitest";
import type { RunPurpose } from "@/db/schema";
import { registeredWorkflows } from "@/lib/agents/workflow-registry";
import "./index";

// Every purpose a run can have, checked by the compiler: a new one must be added here.
const PURPOSES = {
  brief: true,
  ready: true,
  code: true,
  review: true,
  answer: true,
  reply: true,
  brainstorm: true,
} satisfies Record<RunPurpose["kind"], true>;

describe("the workflow registry", () => {
  it("gives every run purpose exactly one workflow that moves it on when its run ends", () => {
    for (const kind of Object.keys(PURPOSES) as RunPurpose["kind"][]) {
      const owners = registeredWorkflows().filter((module) => module.runEnded?.[kind]);
      expect({ kind, owners: owners.map((module) => module.name).length }).toEqual({ kind, owners: 1 });
    }
  });

  it("has some workflow open dialogues from a free run's words, and one that has agents work alone", () => {
    expect(
      registeredWorkflows()
        .filter((module) => module.freeRunEnded)
        .map((module) => module.name),
    ).toEqual(["dialogue"]);
    expect(
      registeredWorkflows()
        .filter((module) => module.workingAlone)
        .map((module) => module.name),
    ).toEqual(["brainstorm"]);
  });
});
