import { randomUUID } from "node:crypto";
import type { Db, Tx } from "@/db";
import { type Agent, agents, rooms } from "@/db/schema";
import { badRequest } from "@/lib/errors";
import { type Actor, SYSTEM_ACTOR, writeRoomEventsInTransaction } from "@/lib/events/write-room-events";
import type { PayloadOf } from "@/lib/protocol";
import { agentToDto } from "./dto";
import { type RoomSettingsPatch, parseRoomSettings } from "./room-settings";
import { type PersonaTemplate, findTemplate } from "./templates";

/** A room's title and template, checked by its caller (see `newRoomInputSchema` for what people send). */
export interface CreateRoomInput {
  title: string;
  template: string;
}

export interface CreateRoomOptions {
  actor?: Actor;
  /** Overrides the template's agents (rooms imported from a configuration file). */
  agents?: PersonaTemplate[];
  settings?: RoomSettingsPatch;
  /** What the agents' identities start with instead of the template (an imported team's namespace). */
  identityPrefix?: string;
  id?: string;
  now?: () => Date;
  /** A room continued from a moment of another: its agents' ids (by position), and what its first event says and copies. */
  fork?: {
    agentIds: string[];
    origin: NonNullable<PayloadOf<"room.created">["forkedFrom"]>;
    copied: NonNullable<PayloadOf<"room.created">["copied"]>;
    /** Writes the rest of what it copies, in the same transaction, after its first event. */
    fill(tx: Tx, agents: Agent[]): Promise<void>;
  };
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
      .values({
        id: roomId,
        title: input.title,
        template: input.template,
        settings,
        createdAt: now,
        lastActivityAt: now,
        ...(options.fork ? { forkedFromRoomId: options.fork.origin.roomId, forkedFromSeq: options.fork.origin.seq } : {}),
      })
      .returning();
    const agentRows = personas.length
      ? await tx
          .insert(agents)
          .values(
            personas.map((persona, position) => ({
              id: options.fork?.agentIds[position] ?? randomUUID(),
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
          payload: {
            title: input.title,
            template: input.template,
            agents: agentDtos,
            settings,
            ...(options.fork ? { forkedFrom: options.fork.origin, copied: options.fork.copied } : {}),
          },
        }),
      { now: () => now },
    );
    await options.fork?.fill(tx, agentRows);
    return { room: room!, agents: agentDtos };
  });
}
