import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { boardEntries, events } from "@/db/schema";
import { GET as listFindings } from "@/app/api/rooms/[roomId]/findings/route";
import { loadPromptContext } from "@/lib/agents/load-prompt-context";
import { startAgentRun } from "@/lib/agents/start-agent-run";
import { buildPrompt } from "@/lib/agents/build-prompt";
import { parseRoomSettings } from "@/lib/rooms/room-settings";
import { agentByPersona } from "@/test/agents";
import { alice, createTestRoom } from "@/test/fixtures";
import { call } from "@/test/http";
import { useTestRuntime } from "@/test/test-runtime";
import { runs } from "@/db/schema";
import { applyRoomEvent, initialRoomState } from "@/components/room/room-state";
import { olderCursor } from "@/components/findings/findings-view";
import { readEventsAfter } from "@/lib/events/read-events";
import { getRoomSnapshot } from "@/lib/rooms/get-room-snapshot";
import { postFinding } from "./post-finding";

const context = useTestRuntime();
const settings = { max_high_findings_per_run: 2, finding_repeat_minutes: 10 };

async function poster(roomId: string, persona: string, runId = `run-${persona}-${Math.random()}`) {
  const agent = await agentByPersona(context.database, roomId, persona);
  return (finding: string, severity: "low" | "medium" | "high" = "medium", at?: Date) =>
    postFinding(
      context.database.db,
      {
        roomId,
        run: { id: runId, correlationId: "c" },
        agent: { id: agent.id, name: agent.name },
        finding: { finding, severity },
        settings,
      },
      at ? { now: () => at } : {},
    );
}

const list = (roomId: string, query = "") =>
  call(listFindings, { url: `/api/rooms/${roomId}/findings${query}`, method: "GET", params: { roomId } });

describe("findings", () => {
  it("are posted on the board for good, trimmed, and the same one again within ten minutes writes nothing", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const post = await poster(roomId, "storyteller");
    const first = await post("  The chorus and the scene disagree on the season.  ");
    expect(first.repeated).toBe(false);
    expect(first.entry.expiresAt).toBeNull();
    expect(first.entry.content).toEqual({ finding: "The chorus and the scene disagree on the season.", severity: "medium", nodeIds: [] });
    const again = await post("the chorus and the scene   disagree on the season");
    expect(again).toMatchObject({ repeated: true, entry: { id: first.entry.id } });
    // Still the earlier one at nine minutes, a new one at eleven.
    const postedAt = first.entry.createdAt.getTime();
    const nine = await post("The chorus and the scene disagree on the season!", "medium", new Date(postedAt + 9 * 60_000));
    expect(nine).toMatchObject({ repeated: true, entry: { id: first.entry.id } });
    const later = await post("The chorus and the scene disagree on the season.", "medium", new Date(postedAt + 11 * 60_000));
    expect(later.repeated).toBe(false);
    const posted = await context.database.db.select().from(events).where(eq(events.roomId, roomId));
    expect(posted.filter((event) => event.type === "board.posted")).toHaveLength(2);
  });

  it("refuses empty and overlong text naming the limit, and a third high finding in one run", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const post = await poster(roomId, "songwriter", "one-run");
    await expect(post("   ")).rejects.toMatchObject({ status: 400 });
    await expect(post("x".repeat(1001))).rejects.toThrow(/at most 1000 characters; this one has 1001/);
    expect((await post("x".repeat(1000), "low")).repeated).toBe(false);
    await post("First alarm", "high");
    await post("Second alarm", "high");
    await expect(post("Third alarm", "high")).rejects.toThrow(/as medium or low, or merge it/);
    expect((await post("Third alarm", "medium")).repeated).toBe(false);
    const rows = await context.database.db.select().from(boardEntries).where(eq(boardEntries.roomId, roomId));
    expect(rows).toHaveLength(4);
  });

  it("are listed newest first for anyone, filtered by severity and agent, a page at a time, and bad queries are 400s", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const painter = await agentByPersona(context.database, roomId, "scene-painter");
    const byPainter = await poster(roomId, "scene-painter");
    const byWeaver = await poster(roomId, "idea-weaver");
    const start = Date.now();
    for (let index = 0; index < 6; index++) {
      const post = index % 2 ? byWeaver : byPainter;
      await post(`Finding ${index}`, index === 4 ? "high" : "low", new Date(start + index * 1000));
    }
    const all = await list(roomId);
    expect(all.status).toBe(200);
    expect(all.body.findings.map((finding: { finding: string }) => finding.finding)).toEqual(
      [5, 4, 3, 2, 1, 0].map((index) => `Finding ${index}`),
    );
    expect((await list(roomId, "?severity=high")).body.findings.map((finding: { finding: string }) => finding.finding)).toEqual([
      "Finding 4",
    ]);
    const painters = await list(roomId, `?agent=${painter.id}`);
    expect(painters.body.findings.map((finding: { agentName: string }) => finding.agentName)).toEqual([
      "Scene Painter",
      "Scene Painter",
      "Scene Painter",
    ]);
    expect((await list(roomId, "?agent=idea-weaver&limit=1")).body.findings.map((finding: { finding: string }) => finding.finding)).toEqual(
      ["Finding 5"],
    );
    const page = await list(roomId, "?limit=2");
    expect(page.body.findings.map((finding: { finding: string }) => finding.finding)).toEqual(["Finding 5", "Finding 4"]);
    const next = await list(roomId, `?limit=2&cursor=${page.body.nextCursor}`);
    expect(next.body.findings.map((finding: { finding: string }) => finding.finding)).toEqual(["Finding 3", "Finding 2"]);
    const before = await list(roomId, `?before=${encodeURIComponent(all.body.findings[1].createdAt)}`);
    expect(before.body.findings.map((finding: { finding: string }) => finding.finding)).toEqual([
      "Finding 3",
      "Finding 2",
      "Finding 1",
      "Finding 0",
    ]);
    expect(before.body.nextCursor).toBeNull();

    for (const bad of [
      "?limit=0",
      "?limit=101",
      "?limit=ten",
      "?severity=urgent",
      "?before=yesterday",
      "?agent=nobody",
      "?colour=red",
      "?cursor=not-a-cursor",
      "?limit=5&limit=6",
      "?severity=low&severity=high",
    ]) {
      const answer = await list(roomId, bad);
      expect(answer.status, bad).toBe(400);
      expect(answer.body.error.message.length, bad).toBeGreaterThan(5);
    }
    expect((await list(roomId, "?limit=5&limit=6")).body.error.message).toBe("limit is given more than once.");
    expect((await list(roomId, "?colour=red")).body.error.message).toMatch(
      /unknown parameter\(s\) colour; use severity, agent, cursor, before, limit/,
    );
    expect((await list("no-such-room")).status).toBe(404);
  });

  it("page through many posted in one millisecond, each listed once, to the end", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const painter = await agentByPersona(context.database, roomId, "scene-painter");
    const at = new Date();
    await context.database.db.insert(boardEntries).values(
      Array.from({ length: 120 }, (_, index) => ({
        id: `finding-${String(index).padStart(3, "0")}`,
        roomId,
        agentId: painter.id,
        agentName: painter.name,
        kind: "finding" as const,
        content: { finding: `Same moment ${index}`, severity: "low", nodeIds: [] },
        createdAt: at,
      })),
    );
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const answer = await list(roomId, `?limit=50${cursor ? `&cursor=${cursor}` : ""}`);
      expect(answer.status).toBe(200);
      seen.push(...answer.body.findings.map((finding: { id: string }) => finding.id));
      cursor = answer.body.nextCursor;
      if (!cursor) break;
    }
    expect(cursor).toBeNull();
    expect(seen).toHaveLength(120);
    expect(new Set(seen).size).toBe(120);
    // Without a limit, a page holds 50.
    const first = await list(roomId);
    expect(first.body.findings.map((finding: { id: string }) => finding.id)).toEqual(seen.slice(0, 50));
    expect(first.body.nextCursor).not.toBeNull();
    // The page's own cursor for the oldest finding it holds continues just the same.
    const held = (await list(roomId, "?limit=100")).body.findings.at(-1);
    const rest = await list(roomId, `?cursor=${olderCursor(held)}`);
    expect(rest.body.findings.map((finding: { id: string }) => finding.id)).toEqual(seen.slice(100));
  });

  it("reach the page as the server lists them: a live finding is the same as the API's", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const post = await poster(roomId, "storyteller");
    const snapshot = await getRoomSnapshot(context.database.db, roomId);
    await post("The bridge and the verse disagree on the tide.", "high");
    const [posted] = await readEventsAfter(context.database.db, roomId, snapshot.lastSeq);
    const outcome = applyRoomEvent(initialRoomState(snapshot, null), posted!);
    expect(outcome.kind).toBe("applied");
    const listed = (await list(roomId)).body.findings;
    expect(outcome.kind === "applied" && outcome.state.findings).toEqual(listed);
  });

  it("reach every run's prompt, the newest fifteen, newest last", async () => {
    const { roomId } = await createTestRoom(context.database.db);
    const post = await poster(roomId, "storyteller");
    const start = Date.now();
    for (let index = 0; index < 16; index++) await post(`Finding number ${index}`, "low", new Date(start + index * 1000));
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const run = await startAgentRun(context.database.db, roomId, { agentId: songwriter.id, prompt: "Write" }, alice);
    const [row] = await context.database.db.select().from(runs).where(eq(runs.id, run.id));
    const loaded = await loadPromptContext(context.database.db, {
      run: row!,
      agent: songwriter,
      team: [songwriter],
      settings: parseRoomSettings({ context_token_budget: 50_000 }),
      now: new Date(),
      toolNames: [],
      notes: { roomId, agentId: songwriter.id, agentName: songwriter.name, runId: run.id, step: 0 },
    });
    const { prompt } = buildPrompt(loaded);
    const section = prompt.split("## Shared findings\n")[1]!.split("\n\n")[0]!.split("\n");
    expect(section).toHaveLength(15);
    expect(section[0]).toBe("- [Storyteller · low] Finding number 1");
    expect(section[14]).toBe("- [Storyteller · low] Finding number 15");
    expect(prompt).not.toMatch(/Finding number 0\b/);
    // Findings are not repeated among the board's entries.
    expect(prompt.split("## Creative context from other agents")[1] ?? "").not.toMatch(/Finding number/);
  });
});
