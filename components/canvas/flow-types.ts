import type { Edge, Node } from "@xyflow/react";
import type { CanvasEdgeDto, CanvasNodeDto } from "@/lib/protocol";

interface NoteData extends Record<string, unknown> {
  node: CanvasNodeDto;
  /** The author's colour: an agent's own colour, or the note's colour for people. */
  accent: string;
  editable: boolean;
  highlighted: boolean;
  onSaveText: (nodeId: string, text: string) => void;
}

export type NoteFlowNode = Node<NoteData, "note">;
export type LabelledFlowEdge = Edge<
  {
    edge: CanvasEdgeDto;
    accent: string;
    labelAt?: { x: number; y: number };
    /** In lanes, the corners the link runs through, along the gaps between the notes. */
    route?: { x: number; y: number }[];
  },
  "labelled"
>;

export const HUMAN_NOTE_COLOR = "#fff3bf";
