import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Db } from "@/db";
import { agents, rooms } from "@/db/schema";
import { badRequest } from "@/lib/errors";
import { type Actor, SYSTEM_ACTOR, writeRoomEventsInTransaction } from "@/lib/events/write-room-events";
import { LIMITS } from "@/lib/protocol";
import { agentToDto } from "./dto";
import { type RoomSettingsPatch, parseRoomSettings } from "./room-settings";
import { type PersonaTemplate, findTemplate } from "./templates";

export const createRoomInputSchema = z.strictObject({
  title: z.string().trim().min(1, "Give the room a title").max(LIMITS.roomTitle),
  template: z.string().min(1).max(64),
});
export type CreateRoomInput = z.infer<typeof createRoomInputSchema>;

export interface CreateRoomOptions {
  actor?: Actor;
  /** Overrides the template's agents (rooms imported from a configuration file). */
  agents?: PersonaTemplate[];
  settings?: RoomSettingsPatch;
  /** What the agents' identities start with instead of the template (an imported team's namespace). */
  identityPrefix?: string;
  id?: string;
  now?: () => Date;
}

/**
 * Who an agent is beyond its room: its template (for an imported team, the team's namespace)
 * and persona. Rooms with the same identity share its knowledge vault.
 */
function agentIdentity(prefix: string, persona: string): string {
  return `${prefix}/${persona}`;
}

/** Creates a room with its template's agents, and the `room.created` event, in one transaction. */
export async function createRoom(db: Db, input: CreateRoomInput, options: CreateRoomOptions = {}) {
  const template = findTemplate(input.template);
  if (!template && !options.agents) throw badRequest(`Unknown template "${input.template}".`);
  const personas = options.agents ?? template!.agents;
  const settings = parseRoomSettings({ ...template?.settings, ...options.settings });
  const roomId = options.id ?? randomUUID();
  const now = (options.now ?? (() => new Date()))();

  return db.transaction(async (tx) => {
    const [room] = await tx
      .insert(rooms)
      .values({ id: roomId, title: input.title, template: input.template, settings, createdAt: now, lastActivityAt: now })
      .returning();
    const agentRows = personas.length
      ? await tx
          .insert(agents)
          .values(
            personas.map((persona, position) => ({
              id: randomUUID(),
              roomId,
              persona: persona.persona,
              name: persona.name,
              role: persona.role,
              description: persona.description,
              color: persona.color,
              model: persona.model,
              identity: agentIdentity(options.identityPrefix ?? input.template, persona.persona),
              systemPrompt: persona.systemPrompt,
              modelOptions: persona.modelOptions ?? {},
              position,
              createdAt: now,
            })),
          )
          .returning()
      : [];
    const agentDtos = agentRows.map(agentToDto).sort((a, b) => a.position - b.position);
    await writeRoomEventsInTransaction(
      tx,
      roomId,
      async (_tx, emit) =>
        emit({
          type: "room.created",
          actor: options.actor ?? SYSTEM_ACTOR,
          payload: { title: input.title, template: input.template, agents: agentDtos },
        }),
      { now: () => now },
    );
    return { room: room!, agents: agentDtos };
  });
}
