import { describe, expect, it } from "vitest";
import { DEFAULT_ROOM_SETTINGS } from "@/lib/rooms/room-settings";
import type { ActiveRun } from "../run-context";
import { createBroadcastTools } from "./broadcast-tools";

describe("respond_to_broadcast", () => {
  it("only tells the caller that its shadow answers for it", async () => {
    const agent = { id: "a", name: "Songwriter" };
    // Only what the tools read as they are built: the room's settings and who is on the team.
    const tools = createBroadcastTools({
      settings: { ...DEFAULT_ROOM_SETTINGS, broadcast: "agents" },
      team: [agent, { id: "b", name: "Scene Painter" }],
      agent,
    } as unknown as ActiveRun);
    const result = await tools.respond_to_broadcast.execute!({ answer: "Yes" }, { toolCallId: "t", messages: [] } as never);
    expect(result).toEqual({
      ok: true,
      message: "Broadcast responses are handled automatically by your shadow agent; there is nothing to answer. Continue your work.",
    });
    expect(tools.ask_others.description).toMatch(/Scene Painter/);
  });
});
