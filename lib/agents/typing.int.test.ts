import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EphemeralEvent } from "@/lib/protocol";
import { RoomBus } from "@/lib/realtime/bus";
import { agentByPersona } from "@/test/agents";
import { alice, createTestRoom, eventually } from "@/test/fixtures";
import { mockResolver, setAgentModel } from "@/test/mock-models";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";
import { startAgentRun } from "./start-agent-run";
import { AgentWorker } from "./worker";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A bus whose first typing signal is slow to leave, as when its connection is busy. */
class SlowFirstTypingBus extends RoomBus {
  private typingSent = 0;
  override async publishEphemeral(event: EphemeralEvent): Promise<void> {
    if (event.type === "agent.typing" && this.typingSent++ === 0) await sleep(150);
    return super.publishEphemeral(event);
  }
}

/** A model that streams `words` one every 25 ms, in one step. */
function slowlyWriting(words: string[]) {
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        async start(controller) {
          controller.enqueue({ type: "text-start", id: "t" });
          for (const word of words) {
            controller.enqueue({ type: "text-delta", id: "t", delta: word });
            await sleep(25);
          }
          controller.enqueue({ type: "text-end", id: "t" });
          controller.enqueue({
            type: "finish",
            finishReason: { unified: "stop", raw: "stop" },
            usage: {
              inputTokens: { total: 5, noCache: 5, cacheRead: 0, cacheWrite: 0 },
              outputTokens: { total: 8, text: 8, reasoning: 0 },
            },
          });
          controller.close();
        },
      }),
    }),
  });
}

describe("an agent's streaming text", () => {
  it("reaches the room in order, and before the step it belongs to", async () => {
    const { roomId } = await createTestRoom(database.db);
    const agent = await agentByPersona(database, roomId, "songwriter");
    const words = ["Salt ", "on ", "the ", "window, ", "rain ", "in ", "the ", "song."];
    await setAgentModel(database, agent.id, "mock:slow");
    const bus = new SlowFirstTypingBus(database);
    await bus.start();
    const received: string[] = [];
    bus.subscribe(roomId, (delivery) => {
      if (delivery.kind !== "event") return;
      if (delivery.event.type === "agent.typing") received.push((delivery.event.payload as { delta: string }).delta);
      if (delivery.event.type === "run.step") received.push("[step]");
    });
    const worker = new AgentWorker(database, bus, {
      owner: "typing-order",
      resolveModel: mockResolver({ slow: slowlyWriting(words) }),
      pollMs: 50,
      execute: { typingFlushMs: 10 },
      onError: (error) => console.error("[test worker]", error),
    });
    await worker.start();
    try {
      await startAgentRun(database.db, roomId, { agentId: agent.id }, alice);
      await eventually(() => expect(received).toContain("[step]"), 10_000);
      await sleep(300);
      const step = received.indexOf("[step]");
      expect(received.slice(0, step).join("")).toBe(words.join(""));
      expect(received.slice(step + 1)).toEqual([]);
    } finally {
      await worker.stop();
      await bus.stop();
    }
  });
});
