import { describe, expect, it } from "vitest";
import { storedEventSchema } from "@/lib/protocol";
import { agentDto, boardEntryDto, broadcastDto, broadcastResponseDto, edgeDto, nodeDto, runDto, storedEvent } from "./builders";

describe("the fixture builders", () => {
  it("build what the schemas accept, with the overrides given", () => {
    expect(nodeDto({ text: "Window" })).toMatchObject({ id: "n1", text: "Window", authorKind: "human" });
    expect(edgeDto({ label: "echoes" }).label).toBe("echoes");
    expect(agentDto({ persona: "scene-painter" }).persona).toBe("scene-painter");
    expect(runDto({ status: "running" }).status).toBe("running");
    expect(boardEntryDto({ kind: "theme", content: { mood: "calm" } }).kind).toBe("theme");
    expect(broadcastDto({ mode: "agents" }).mode).toBe("agents");
    expect(broadcastResponseDto({ content: "Sun" }).content).toBe("Sun");
    const event = storedEvent("node.created", { node: nodeDto() }, { seq: 7 });
    expect(storedEventSchema.parse(event)).toEqual(event);
    expect(event).toMatchObject({ seq: 7, id: "e7", type: "node.created" });
  });

  it("refuse overrides that break the schema, so no fixture can drift from it", () => {
    expect(() => nodeDto({ color: "red" })).toThrow(/#rrggbb/);
    // @ts-expect-error -- deliberately malformed: a status runs do not have
    expect(() => runDto({ status: "paused" })).toThrow();
    // @ts-expect-error -- deliberately malformed: an edge update without its label
    expect(() => storedEvent("edge.updated", { edgeId: "e1" })).toThrow(/label/);
  });
});
