"use client";

import type { ComponentType } from "react";
import { BrainstormPanel } from "@/components/brainstorm/brainstorm-panel";
import { StageTracker } from "@/components/brainstorm/stage-tracker";
import { ReviewPanel } from "@/components/dialogue/review-panel";
import { useRoom } from "@/components/room/room-store";

/** What a workflow template adds to its room's page. */
interface WorkflowPanel {
  /** Over the canvas: what a participant starts the workflow with, and where it stands. */
  panel: ComponentType;
  /** Across the top of the room, above the canvas (a brainstorm's stages). */
  top?: ComponentType;
  /** What starting the team does, in the template's words, in place of its summary and the turn order. */
  plan?: string;
}

/**
 * The panels of the workflow templates, by template: a new workflow adds its panel with one
 * line here. A room whose template has none shows the canvas alone.
 */
const WORKFLOW_PANELS: Record<string, WorkflowPanel> = {
  "build-review": {
    panel: ReviewPanel,
    plan: "The Architect writes a brief from it, the Coder codes it, and the Reviewer reviews each version.",
  },
  brainstorm: {
    panel: BrainstormPanel,
    top: StageTracker,
    plan: "Seventeen thinkers take it through nine stages, from framing to a written proposal; the people here approve the shortlist.",
  },
};

/** The panels a room of `template` shows, if its template is a workflow that has any. */
export function workflowPanel(template: string): WorkflowPanel | undefined {
  return Object.hasOwn(WORKFLOW_PANELS, template) ? WORKFLOW_PANELS[template] : undefined;
}

/** Use over the canvas: the room's workflow panel, or nothing. */
export function WorkflowPanelSlot() {
  const template = useRoom((state) => state.room.template);
  const Panel = workflowPanel(template)?.panel;
  return Panel ? <Panel /> : null;
}

/** Use above the canvas: what the room's workflow shows across the top, or nothing. */
export function WorkflowTopSlot() {
  const template = useRoom((state) => state.room.template);
  const Top = workflowPanel(template)?.top;
  return Top ? <Top /> : null;
}
