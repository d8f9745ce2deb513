import { QueryClient, QueryObserver, environmentManager, isServer } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createRoomStore } from "@/components/room/room-store";
import type { PayloadOf, StoredEventType, VaultDto } from "@/lib/protocol";
import { agentDto, roomSnapshot, storedEvent } from "@/test/builders";
import { VAULT_REFRESH_MS, vaultQuery } from "./vault-query";

const stored = <T extends StoredEventType>(seq: number, type: T, payload: PayloadOf<T>) => storedEvent(type, payload, { seq });

const vaultWith = (...insights: string[]): VaultDto => ({
  identity: "creative-canvas/scene-painter",
  areas: [],
  insights: insights.map((text, index) => ({ id: `i${index}`, text, createdAt: "2026-11-22T10:00:00.000Z" })),
  tasks: [],
});

const finished = (seq: number, agentId: string) =>
  stored(seq, "run.finished", {
    runId: `run-${seq}`,
    agentId,
    status: "succeeded",
    steps: 3,
    attempts: 1,
    error: null,
    durationMs: 1200,
    inputTokens: 10,
    outputTokens: 5,
    costUsd: 0,
  });

describe("the room's count of each agent's vault changes", () => {
  const agents = [
    agentDto({ id: "sp", persona: "scene-painter", name: "Scene Painter" }),
    agentDto({ id: "sw", persona: "songwriter", name: "Songwriter" }),
  ];

  it("moves when the agent's knowledge is updated or cleared, and when a run of it finishes with its task recorded", () => {
    const store = createRoomStore(roomSnapshot({ agents }), null);
    const versions = () => store.getState().vaultVersions;
    store.getState().apply(
      stored(2, "knowledge.updated", {
        agentId: "sp",
        identity: "creative-canvas/scene-painter",
        insight: "Dusk light",
        area: null,
        level: null,
      }),
    );
    expect(versions()).toEqual({ sp: 1 });
    store.getState().apply(finished(3, "sp"));
    expect(versions()).toEqual({ sp: 2 });
    store.getState().apply(finished(4, "sw"));
    expect(versions()).toEqual({ sp: 2, sw: 1 });
    store.getState().apply(stored(5, "knowledge.cleared", { agentId: "sp", identity: "creative-canvas/scene-painter" }));
    expect(versions()).toEqual({ sp: 3, sw: 1 });
  });
});

describe("an open vault drawer's reads", () => {
  let fetch: ReturnType<typeof vi.fn>;
  let served: VaultDto;
  let client: QueryClient;

  beforeEach(() => {
    // The drawer reads in the browser: outside one, queries neither refresh on a timer nor are collected.
    environmentManager.setIsServer(() => false);
    vi.useFakeTimers();
    served = vaultWith("Dusk light suits the harbour");
    fetch = vi.fn(async () => new Response(JSON.stringify({ vault: served }), { status: 200 }));
    vi.stubGlobal("fetch", fetch);
    // As the page's client is set up: answers count as fresh for two seconds unless a query says otherwise.
    client = new QueryClient({ defaultOptions: { queries: { staleTime: 2000, retry: false } } });
  });

  afterEach(() => {
    client.clear();
    environmentManager.setIsServer(() => isServer);
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  /** The drawer opened for the Scene Painter at `version`: what it shows, and a way to close it. */
  function open(version = 0) {
    const observer = new QueryObserver(client, vaultQuery("r", "sp", version));
    const close = observer.subscribe(() => {});
    const insights = () => observer.getCurrentResult().data?.insights.map((insight) => insight.text);
    return { observer, close, insights };
  }

  /** Lets the read the drawer started come back. */
  const settle = () => vi.advanceTimersByTimeAsync(0);

  it("reads the agent's vault from this room's API", async () => {
    const drawer = open();
    await settle();
    expect(fetch).toHaveBeenCalledOnce();
    expect(fetch.mock.calls[0]![0]).toBe("/api/rooms/r/agents/sp/vault");
    expect(fetch.mock.calls[0]![1]).toMatchObject({ method: "GET" });
    expect(drawer.insights()).toEqual(["Dusk light suits the harbour"]);
    drawer.close();
  });

  it("shows what another room added while it stays open, within one refresh, and stops reading once closed", async () => {
    const drawer = open();
    await settle();
    // The same identity learns something in another room: no event of this room says so.
    served = vaultWith("Gulls give a harbour scene its scale", "Dusk light suits the harbour");
    await vi.advanceTimersByTimeAsync(VAULT_REFRESH_MS);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(drawer.insights()).toEqual(["Gulls give a harbour scene its scale", "Dusk light suits the harbour"]);
    drawer.close();
    await vi.advanceTimersByTimeAsync(VAULT_REFRESH_MS * 4);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it("reads again at once on the room's next change to the agent's vault, showing the last read meanwhile", async () => {
    const drawer = open(0);
    await settle();
    served = vaultWith("Paint the harbour at dusk", "Dusk light suits the harbour");
    drawer.observer.setOptions(vaultQuery("r", "sp", 1));
    expect(drawer.insights()).toEqual(["Dusk light suits the harbour"]);
    await settle();
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(drawer.insights()).toEqual(["Paint the harbour at dusk", "Dusk light suits the harbour"]);
    drawer.close();
  });

  it("reads again each time it opens, however soon, showing the last read until the new one arrives", async () => {
    const first = open();
    await settle();
    first.close();
    served = vaultWith("Gulls give a harbour scene its scale");
    await vi.advanceTimersByTimeAsync(500);
    const again = open();
    expect(again.insights()).toEqual(["Dusk light suits the harbour"]);
    await settle();
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(again.insights()).toEqual(["Gulls give a harbour scene its scale"]);
    again.close();
  });

  it("says why when the vault cannot be read", async () => {
    fetch.mockResolvedValue(
      new Response(JSON.stringify({ error: { code: "not_found", message: "Agent nobody not found." } }), { status: 404 }),
    );
    const drawer = open();
    await settle();
    expect(drawer.observer.getCurrentResult().error?.message).toBe("Agent nobody not found.");
    drawer.close();
  });
});
