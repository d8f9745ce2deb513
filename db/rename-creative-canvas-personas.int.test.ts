import fs from "node:fs";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrationsFolder } from "@/db/client";
import { agents, boardEntries, events, rooms } from "@/db/schema";
import { type TestDatabase, createTestDatabase } from "@/test/test-database";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

/** The migration's statements, run again on rows written with the keys it renames. */
async function renamePersonas() {
  const text = fs.readFileSync(path.join(migrationsFolder, "0007_rename_creative_canvas_personas.sql"), "utf8");
  for (const statement of text.split("--> statement-breakpoint")) await database.db.execute(sql.raw(statement));
}

const OLD = ["brainstormer", "architect", "coder", "analyst", "canvas-agent"];

async function roomWithOldKeys(id: string, template: string) {
  await database.db.insert(rooms).values({ id, title: id, template });
  const team = OLD.map((persona, position) => ({
    id: `${id}-${persona}`,
    roomId: id,
    persona,
    name: persona,
    role: "r",
    description: "d",
    color: "#000000",
    model: persona === "canvas-agent" ? "script:creative-curator" : `script:${persona}`,
    identity: `creative-canvas/${persona}`,
    position,
  }));
  await database.db.insert(agents).values(team);
  const request = { targetPersona: "architect", ask: "Paint the verse", refNodeIds: [] };
  await database.db.insert(boardEntries).values({
    id: `${id}-request`,
    roomId: id,
    agentName: "coder",
    kind: "request",
    content: request,
    targetPersona: "architect",
    requestStatus: "open",
    expiresAt: new Date(Date.now() + 60_000),
  });
  const envelope = { roomId: id, correlationId: "c", agent: "system", agentName: "Parley", status: "success" as const };
  await database.db.insert(events).values([
    {
      ...envelope,
      id: `${id}-e1`,
      seq: 1,
      type: "room.created",
      payload: { title: id, template, agents: team.map(({ roomId, ...agent }) => agent) },
    },
    {
      ...envelope,
      id: `${id}-e2`,
      seq: 2,
      type: "board.posted",
      payload: { entry: { id: `${id}-request`, kind: "request", content: request, targetPersona: "architect" } },
    },
  ]);
}

describe("renaming the Creative canvas personas", () => {
  it("gives existing rooms' agents, requests and history the keys that say who they are", async () => {
    await roomWithOldKeys("canvas", "creative-canvas");
    await roomWithOldKeys("imported", "imported");
    await renamePersonas();

    const team = await database.db.select().from(agents).where(eq(agents.roomId, "canvas")).orderBy(agents.position);
    expect(team.map((agent) => [agent.persona, agent.model])).toEqual([
      ["idea-weaver", "script:brainstormer"],
      ["scene-painter", "script:architect"],
      ["songwriter", "script:coder"],
      ["storyteller", "script:analyst"],
      ["curator", "script:curator"],
    ]);
    const [request] = await database.db.select().from(boardEntries).where(eq(boardEntries.id, "canvas-request"));
    expect(request).toMatchObject({ targetPersona: "scene-painter", content: { targetPersona: "scene-painter", ask: "Paint the verse" } });
    const history = await database.db.select().from(events).where(eq(events.roomId, "canvas")).orderBy(events.seq);
    const created = history[0]!.payload as { agents: { persona: string; model: string }[] };
    expect(created.agents.map((agent) => agent.persona)).toEqual(["idea-weaver", "scene-painter", "songwriter", "storyteller", "curator"]);
    expect(created.agents.at(-1)!.model).toBe("script:curator");
    expect(history[1]!.payload).toMatchObject({ entry: { targetPersona: "scene-painter", content: { targetPersona: "scene-painter" } } });

    // A team imported from a file keeps the ids its file gave it.
    const imported = await database.db.select().from(agents).where(eq(agents.roomId, "imported")).orderBy(agents.position);
    expect(imported.map((agent) => agent.persona)).toEqual(OLD);
    const [importedRequest] = await database.db.select().from(boardEntries).where(eq(boardEntries.id, "imported-request"));
    expect(importedRequest!.targetPersona).toBe("architect");
  });
});
