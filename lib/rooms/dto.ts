import type { Agent, CanvasEdge, CanvasNode, Room } from "@/db/schema";
import { shownEndpoint } from "@/lib/models/agent-endpoint";
import type { AgentDto, CanvasEdgeDto, CanvasNodeDto, RoomSummaryDto } from "@/lib/protocol";

export function roomToDto(room: Room): RoomSummaryDto {
  return {
    id: room.id,
    title: room.title,
    template: room.template,
    lastSeq: room.lastSeq,
    createdAt: room.createdAt.toISOString(),
    lastActivityAt: room.lastActivityAt.toISOString(),
  };
}

export function agentToDto(agent: Agent): AgentDto {
  return {
    id: agent.id,
    persona: agent.persona,
    name: agent.name,
    role: agent.role,
    description: agent.description,
    color: agent.color,
    model: agent.model,
    // An endpoint read from a server variable is shown by the variable's name: its value stays on the server.
    endpoint: (agent.modelOptions ? shownEndpoint(agent.modelOptions) : undefined) ?? null,
    position: agent.position,
  };
}

export function nodeToDto(node: CanvasNode): CanvasNodeDto {
  return {
    id: node.id,
    kind: node.kind,
    text: node.text,
    x: node.x,
    y: node.y,
    width: node.width,
    height: node.height,
    color: node.color,
    authorKind: node.authorKind,
    authorId: node.authorId,
    authorName: node.authorName,
    version: node.version,
    createdAt: node.createdAt.toISOString(),
    updatedAt: node.updatedAt.toISOString(),
  };
}

export function edgeToDto(edge: CanvasEdge): CanvasEdgeDto {
  return {
    id: edge.id,
    sourceId: edge.sourceId,
    targetId: edge.targetId,
    label: edge.label,
    authorKind: edge.authorKind,
    authorId: edge.authorId,
    authorName: edge.authorName,
    createdAt: edge.createdAt.toISOString(),
  };
}
