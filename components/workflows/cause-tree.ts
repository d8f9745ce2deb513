import type { StoredEvent } from "@/lib/protocol";

/** A message of a workflow and what it caused, in order. */
export interface CauseNode {
  event: StoredEvent;
  children: CauseNode[];
}

/**
 * A workflow's messages as the tree of what caused what: each under the message that caused it,
 * in order. A message whose cause is not among them (the workflow's root, a message written
 * before causes were kept, one caused by another workflow) starts a tree of its own.
 */
export function causeTree(messages: StoredEvent[]): CauseNode[] {
  const nodes = new Map<string, CauseNode>();
  for (const event of messages) nodes.set(event.id, { event, children: [] });
  const roots: CauseNode[] = [];
  for (const event of messages) {
    const node = nodes.get(event.id);
    if (!node) continue;
    const parent = event.causation_id ? nodes.get(event.causation_id) : undefined;
    // A cause is stored before its effect; anything else is read as a root rather than a loop.
    if (parent && parent.event.seq < event.seq) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

/** How many messages a node stands for, itself and all it caused. */
export function treeSize(node: CauseNode): number {
  let size = 1;
  for (const child of node.children) size += treeSize(child);
  return size;
}
