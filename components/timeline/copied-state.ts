import { findingToDto } from "@/lib/findings/finding-dto";
import type { BoardEntryDto, CanvasEdgeDto, CanvasNodeDto, ForkCopy } from "@/lib/protocol";

/**
 * What a continued room's first event brings into its state: the notes, links and board it was
 * given from its origin (nothing for any other room).
 */
export function copiedRoomState(copied: ForkCopy | undefined): {
  nodes?: Record<string, CanvasNodeDto>;
  edges?: Record<string, CanvasEdgeDto>;
  board?: Record<string, BoardEntryDto>;
  findings?: ReturnType<typeof findingToDto>[];
} {
  if (!copied) return {};
  return {
    nodes: Object.fromEntries(copied.nodes.map((node) => [node.id, node])),
    edges: Object.fromEntries(copied.edges.map((edge) => [edge.id, edge])),
    board: Object.fromEntries(copied.board.map((entry) => [entry.id, entry])),
    findings: copied.board.filter((entry) => entry.kind === "finding").map(findingToDto),
  };
}
