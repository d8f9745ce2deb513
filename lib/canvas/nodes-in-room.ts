import { and, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { canvasNodes } from "@/db/schema";
import { badRequest } from "@/lib/errors";

/** Refuses (400) node ids that name no node of the room: what an entry refers to must be on its canvas. */
export async function assertNodesInRoom(tx: DbOrTx, roomId: string, nodeIds: string[]): Promise<void> {
  if (nodeIds.length === 0) return;
  const found = await tx
    .select({ id: canvasNodes.id })
    .from(canvasNodes)
    .where(and(eq(canvasNodes.roomId, roomId), inArray(canvasNodes.id, nodeIds)));
  const missing = nodeIds.filter((id) => !found.some((node) => node.id === id));
  if (missing.length) throw badRequest(`Unknown node id(s): ${missing.join(", ")}.`);
}
