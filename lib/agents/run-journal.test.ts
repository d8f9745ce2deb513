import type { ModelMessage, StepResult, ToolSet } from "ai";
import { describe, expect, it } from "vitest";
import type { RunOpening, ShownNote } from "@/db/schema";
import type { LimitReachedPayload } from "@/lib/protocol";
import type { ModelCallUsage } from "./record-model-call";
import { type JournalPorts, RunJournal } from "./run-journal";
import type { CompletedStep } from "./save-run-step";

type SavedStep = Omit<CompletedStep, "carry">;

/** Ports that keep what the journal sends out, with notes waiting and saves failing as a test says. */
function fakePorts() {
  const sent: { kind: "typing"; step: number; delta: string }[] = [];
  const saves: SavedStep[] = [];
  const calls: ModelCallUsage[] = [];
  const order: string[] = [];
  const waiting: ShownNote[][] = [];
  let clock = 0;
  const control = { failNextSave: null as Error | null, noteTakes: [] as number[] };
  const ports: JournalPorts = {
    publishTyping: async (step, delta) => {
      sent.push({ kind: "typing", step, delta });
      order.push(`typing:${delta}`);
    },
    saveStreamingText: () => {},
    takeWaitingNotes: async (step) => {
      control.noteTakes.push(step);
      return waiting.shift() ?? [];
    },
    saveStep: async (step) => {
      if (control.failNextSave) {
        const error = control.failNextSave;
        control.failNextSave = null;
        throw error;
      }
      order.push(`step:${step.summary.step}`);
      saves.push(step);
    },
    addModelCall: (call) => calls.push(call),
    usage: (usage) => ({ inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0, costUsd: 0 }),
    clock: () => (clock += 10),
    wallClock: () => 0,
  };
  return { ports, sent, saves, calls, order, waiting, control };
}

const opening: RunOpening = { system: "You are Painter.", prompt: "Paint the sea.", noteIds: [], contextTokens: 10 };

/** A step the model took: its text, a tool call when `tool` is set, and the messages it adds to the conversation. */
function modelStep(text: string, tool?: string): StepResult<ToolSet> {
  const content = [
    { type: "text", text },
    ...(tool ? [{ type: "tool-call", toolCallId: `call-${tool}`, toolName: tool, input: { text } }] : []),
  ];
  const messages: ModelMessage[] = [{ role: "assistant", content: text }];
  const step = { content, response: { messages }, usage: { inputTokens: 5, outputTokens: 3, totalTokens: 8 } };
  // Only what the journal reads of a step is given: the SDK's other fields play no part in it.
  return step as unknown as StepResult<ToolSet>;
}

function newJournal(ports: JournalPorts, saved: { notes: ShownNote[]; messages: ModelMessage[] }[] = []) {
  return new RunJournal(
    {
      runId: "run-1",
      agentId: "agent-1",
      attempt: saved.length ? 2 : 1,
      saved,
      requestsMade: 0,
      helpRequested: 0,
      callsThisRun: new Map(),
    },
    ports,
  );
}

const ongoing = () => new AbortController().signal;

describe("a run's journal", () => {
  it("numbers steps, saves the opening with the first step only, and reads each saved step back", async () => {
    const { ports, saves } = fakePorts();
    const journal = newJournal(ports);
    journal.open({ opening, isNew: true, unshown: [], notesBudget: 1000 });

    const first = await journal.beginStep(0, ongoing());
    expect(journal.step).toBe(0);
    expect(first).toEqual([{ role: "user", content: "Paint the sea." }]);
    journal.callsThisStep.set("add_node:{}", 1);
    await journal.saveStep(modelStep("A wave.", "add_node"));

    const second = await journal.beginStep(1, ongoing());
    expect(journal.step).toBe(1);
    expect(journal.callsThisStep.size).toBe(0);
    expect(second.at(-1)).toEqual({ role: "assistant", content: "A wave." });
    await journal.saveStep(modelStep("Done."));

    expect(saves.map((save) => save.summary.step)).toEqual([0, 1]);
    expect(saves[0]?.opening).toEqual(opening);
    expect(saves[0]?.transcript.slice(0, 2)).toEqual([
      { role: "system", content: "You are Painter." },
      { role: "user", content: "Paint the sea." },
    ]);
    expect(saves[0]?.summary.toolCalls).toEqual([{ id: "call-add_node", name: "add_node", input: { text: "A wave." } }]);
    expect(saves[1]?.opening).toBeNull();
    expect(saves[1]?.transcript).toEqual([{ role: "assistant", step: 1, text: "Done.", toolCalls: [] }]);
    expect(saves[1]?.summary.prompt?.added.opening).toBe(false);
  });

  it("continues after the steps an earlier attempt saved, showing the notes it took but never showed", async () => {
    const { ports, saves, control } = fakePorts();
    const earlier = [{ notes: [], messages: [{ role: "assistant", content: "Earlier." } as ModelMessage] }];
    const journal = newJournal(ports, earlier);
    const unshown: ShownNote = { id: "note-1", text: "Mira asks for blue.", kind: "command" };
    journal.open({ opening, isNew: false, unshown: [unshown], notesBudget: 1000 });

    await journal.beginStep(0, ongoing());
    expect(journal.step).toBe(1);
    // A resumed run's opening was built before: notes that wait are taken from its first step on.
    expect(control.noteTakes).toEqual([1]);
    await journal.saveStep(modelStep("Blue it is."));
    expect(saves[0]?.opening).toBeNull();
    expect(saves[0]?.notes).toEqual([unshown]);
    expect(saves[0]?.transcript[0]).toEqual({ role: "user", step: 1, notes: ["Mira asks for blue."] });
  });

  it("takes no waiting notes for the step whose new opening already holds them", async () => {
    const { ports, control, waiting } = fakePorts();
    waiting.push([{ id: "late", text: "Late note." }]);
    const journal = newJournal(ports);
    journal.open({ opening, isNew: true, unshown: [], notesBudget: 1000 });
    await journal.beginStep(0, ongoing());
    await journal.saveStep(modelStep("One."));
    const messages = await journal.beginStep(1, ongoing());
    expect(control.noteTakes).toEqual([1]);
    expect(JSON.stringify(messages)).toContain("Late note.");
  });

  it("sends a step's typing before the step, and gives each call the reservation it held", async () => {
    const { ports, order, calls } = fakePorts();
    const journal = newJournal(ports);
    journal.open({ opening, isNew: true, unshown: [], notesBudget: 1000 });
    await journal.beginStep(0, ongoing());
    journal.holdReservation("reservation-1");
    journal.type("Hel");
    journal.type("lo");
    journal.recordCall({ inputTokens: 7, outputTokens: 2, totalTokens: 9 } as StepResult<ToolSet>["usage"]);
    journal.recordCall({ inputTokens: 1, outputTokens: 1, totalTokens: 2 } as StepResult<ToolSet>["usage"]);
    await journal.saveStep(modelStep("Hello"));
    expect(order).toEqual(["typing:Hello", "step:0"]);
    expect(calls).toEqual([
      { attempt: 1, call: 0, step: 0, inputTokens: 7, outputTokens: 2, costUsd: 0, reservationId: "reservation-1" },
      { attempt: 1, call: 1, step: 0, inputTokens: 1, outputTokens: 1, costUsd: 0 },
    ]);
  });

  it("halts on a step it cannot save and ends failed with that error, or is abandoned when the lease was lost", async () => {
    const { ports, control } = fakePorts();
    const journal = newJournal(ports);
    journal.open({ opening, isNew: true, unshown: [], notesBudget: 1000 });
    await journal.beginStep(0, ongoing());
    const lost = new Error("lease lost");
    control.failNextSave = lost;
    await journal.saveStep(modelStep("Lost."));
    expect(journal.haltSignal.aborted).toBe(true);
    await expect(journal.beginStep(1, journal.haltSignal)).rejects.toBe(lost);
    await journal.settle();
    const base = { failure: null, reason: null, aborted: false };
    expect(journal.end({ ...base, lostLease: () => false })).toEqual({ kind: "finish", status: "failed", error: lost });
    expect(journal.end({ ...base, lostLease: (error) => error === lost })).toEqual({ kind: "abandon" });
  });

  it("ends on why it stopped: cancelled, a loop guard, a refused spend, or done", () => {
    const { ports } = fakePorts();
    const base = { failure: null, reason: null, aborted: false, lostLease: () => false };
    const reached: LimitReachedPayload = {
      limit: "repeated_tool_call",
      runId: "run-1",
      agentId: "agent-1",
      message: "Round in circles.",
      used: 3,
      allowed: 3,
      resetsAt: null,
    };
    expect(newJournal(ports).end(base)).toEqual({ kind: "finish", status: "succeeded" });
    expect(newJournal(ports).end({ ...base, reason: "shutdown" })).toEqual({ kind: "abandon" });
    expect(newJournal(ports).end({ ...base, reason: "cancelled" })).toEqual({ kind: "finish", status: "cancelled" });
    expect(newJournal(ports).end({ ...base, failure: new Error("aborted"), aborted: true })).toEqual({
      kind: "finish",
      status: "cancelled",
    });

    const guarded = newJournal(ports);
    guarded.stop = reached;
    expect(guarded.stopping).toBe(true);
    expect(guarded.end(base)).toEqual({ kind: "finish", status: "failed", limit: reached });

    const refused = newJournal(ports);
    const budget: LimitReachedPayload = { ...reached, limit: "room_daily_cost" };
    refused.refuseSpend(budget);
    refused.stop = reached;
    // The refused spend came first: it is why the run ends.
    expect(refused.end({ ...base, failure: new Error("refused") })).toEqual({ kind: "finish", status: "failed", limit: budget });
  });
});
