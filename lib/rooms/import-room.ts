import { z } from "zod";
import type { Db } from "@/db";
import { generationSettings } from "@/lib/models/generation-settings";
import { LIMITS } from "@/lib/protocol";
import { createRoom } from "./create-room";
import { parseRoomConfig } from "./import-config";

export const IMPORTED_TEMPLATE = "imported";

export const importRoomInputSchema = z.strictObject({
  yaml: z.string().min(1, "Paste or upload a configuration file").max(256 * 1024, "Configuration files are limited to 256 KB"),
  title: z.string().trim().max(LIMITS.roomTitle).optional(),
  offline: z.boolean().default(false),
  /** The uploaded file's name: the room's title when the file has no task. */
  fileName: z.string().trim().max(200).optional(),
});
export type ImportRoomInput = z.input<typeof importRoomInputSchema>;

/** Creates a room from a multi-agent configuration file; reports what it ignored. */
export async function importRoom(db: Db, input: ImportRoomInput) {
  const parsed = importRoomInputSchema.parse(input);
  const config = parseRoomConfig(parsed.yaml, { offline: parsed.offline });
  const firstLine = config.task
    .split("\n")
    .map((line) => line.trim())
    .find(Boolean);
  const fromFile = parsed.fileName
    ?.replace(/\.(ya?ml)$/i, "")
    .replace(/[_-]+/g, " ")
    .trim();
  const title =
    parsed.title || firstLine?.slice(0, LIMITS.roomTitle).trim() || fromFile?.slice(0, LIMITS.roomTitle) || `Imported team of ${config.agents.length}`;
  const { room, agents } = await createRoom(db, { title, template: IMPORTED_TEMPLATE }, { agents: config.agents, settings: config.settings });
  // Each agent with the generation settings it runs with, for the result to show.
  const withSettings = agents.map((agent) => ({
    ...agent,
    generation: generationSettings(config.agents.find((imported) => imported.persona === agent.persona)?.modelOptions ?? {}),
  }));
  return { room, agents: withSettings, ignored: config.ignored, notes: config.notes, settings: config.settings };
}
