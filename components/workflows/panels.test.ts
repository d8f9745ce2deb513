import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { createRoomStore } from "@/components/room/room-store";
import { ROOM_TEMPLATES } from "@/lib/rooms/templates";
import { brainstormDto, roomSnapshot } from "@/test/builders";
import { drawnInRoom } from "@/test/room-markup";
import { WorkflowPanelSlot, WorkflowTopSlot, workflowPanel } from "./panels";

const PANEL_IDS = ["review-panel", "brainstorm-panel", "stage-tracker"];

/** The workflow panels a room of `template` draws, by their test ids. */
function drawn(template: string): string[] {
  const snapshot = roomSnapshot({ brainstorm: brainstormDto() });
  const store = createRoomStore({ ...snapshot, room: { ...snapshot.room, template } }, null);
  const markup = drawnInRoom(store, createElement(WorkflowTopSlot)) + drawnInRoom(store, createElement(WorkflowPanelSlot));
  return PANEL_IDS.filter((id) => markup.includes(`data-testid="${id}"`));
}

describe("the workflow panels", () => {
  it("draws each template's own panels and no other's", () => {
    expect(drawn("build-review")).toEqual(["review-panel"]);
    expect(drawn("brainstorm")).toEqual(["brainstorm-panel", "stage-tracker"]);
    expect(drawn("creative-canvas")).toEqual([]);
    expect(drawn("toString")).toEqual([]);
  });

  it("say what starting the team does in a workflow template's words, for templates a room can have", () => {
    for (const template of ["build-review", "brainstorm"]) {
      expect(ROOM_TEMPLATES[template], template).toBeDefined();
      expect(workflowPanel(template)?.plan, template).toMatch(/\.$/);
    }
    expect(workflowPanel("creative-canvas")).toBeUndefined();
  });
});
