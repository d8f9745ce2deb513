import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { createRoomStore } from "@/components/room/room-store";
import type { PayloadOf, StoredEventType, VaultDto } from "@/lib/protocol";
import { agentDto, roomSnapshot, storedEvent } from "@/test/builders";
import { drawnInRoom } from "@/test/room-markup";
import { VaultDrawer } from "./vault-drawer";
import { vaultQuery } from "./vault-query";

const painter = agentDto({ id: "sp", persona: "scene-painter", name: "Scene Painter" });
const stored = <T extends StoredEventType>(seq: number, type: T, payload: PayloadOf<T>) => storedEvent(type, payload, { seq });

const vault = (insight: string): VaultDto => ({
  identity: "creative-canvas/scene-painter",
  areas: [{ area: "harbour-scenes", level: 12 }],
  insights: [{ id: "i1", text: insight, createdAt: "2026-11-22T10:00:00.000Z" }],
  tasks: [{ id: "t1", asked: "Paint the harbour at dusk", outcome: "done", steps: 4, costUsd: 0, createdAt: "2026-11-22T10:00:00.000Z" }],
});

/** The drawer as the page draws it, with the reads of the agent's vault that `client` holds. */
function drawer(store: ReturnType<typeof createRoomStore>, client: QueryClient) {
  return drawnInRoom(
    store,
    createElement(QueryClientProvider, { client, children: createElement(VaultDrawer, { agent: painter, onClose: () => {} }) }),
  );
}

describe("the vault drawer", () => {
  it("shows the read of the agent's vault for the room's latest change to it", () => {
    const store = createRoomStore(roomSnapshot({ agents: [painter] }), null);
    const client = new QueryClient();
    client.setQueryData(vaultQuery("r", "sp", 0).queryKey, vault("Dusk light suits the harbour"));
    client.setQueryData(vaultQuery("r", "sp", 1).queryKey, vault("Gulls give a harbour scene its scale"));
    const before = drawer(store, client);
    expect(before).toContain("Dusk light suits the harbour");
    expect(before).toContain("harbour-scenes");
    expect(before).toContain("Paint the harbour at dusk");
    // A run of the agent finished: its task went into the vault, and the drawer reads the next version.
    store.getState().apply(
      stored(2, "run.finished", {
        runId: "run",
        agentId: "sp",
        status: "succeeded",
        steps: 4,
        attempts: 1,
        error: null,
        durationMs: 900,
        inputTokens: 1,
        outputTokens: 1,
        costUsd: 0,
      }),
    );
    const after = drawer(store, client);
    expect(after).toContain("Gulls give a harbour scene its scale");
    expect(after).not.toContain("Dusk light suits the harbour");
  });

  it("says it is reading before the first read arrives", () => {
    expect(drawer(createRoomStore(roomSnapshot({ agents: [painter] }), null), new QueryClient())).toContain("Reading…");
  });
});
