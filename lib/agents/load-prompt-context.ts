import { and, asc, desc, eq, inArray } from "drizzle-orm";
import type { Db } from "@/db";
import { type Agent, type BoardEntry, type CanvasNode, type Run, boardEntries, canvasEdges, canvasNodes, rooms, seats } from "@/db/schema";
import { boardEntryToDto } from "@/lib/board/board-dto";
import { type NoteReader, notesDeliveredTo, takeNotes } from "@/lib/broadcast/agent-notes";
import { findingToDto } from "@/lib/findings/finding-dto";
import { readVault, topAreas } from "@/lib/knowledge/vault";
import { humanQaHistory } from "@/lib/broadcast/human-qa";
import { openRequestsFor, readBoard } from "@/lib/board/read-board";
import { edgeToDto, nodeToDto } from "@/lib/rooms/dto";
import type { RoomSettings } from "@/lib/rooms/room-settings";
import { templateInstructions } from "@/lib/rooms/templates";
import type { PromptContext } from "./build-prompt";
import { heldBackWork, isHeldBack, shownToAlone, workflowPromptContext, workflowRequesterName } from "./team";

/** Who a run's `requestedBy` id names, for the "why you were started" line. */
async function requesterName(db: Db, run: Run, team: Agent[]): Promise<string> {
  if (run.requestedBy === "scheduler") return "the scheduler";
  const workflow = workflowRequesterName(run.requestedBy);
  if (workflow !== null) return workflow;
  const agent = team.find((member) => member.id === run.requestedBy);
  if (agent) return agent.name;
  if (run.requestedBy.startsWith("human:")) {
    const [seat] = await db
      .select()
      .from(seats)
      .where(eq(seats.id, run.requestedBy.slice("human:".length)));
    if (seat) return seat.displayName;
  }
  return run.requestedBy === "admin" ? "an admin" : "someone in the room";
}

interface LoadedPromptContext extends PromptContext {
  /** The notes in `notes`: handed to this run, so they count as shown to it. */
  noteIds: string[];
}

/**
 * Reads everything a run's prompt is built from: canvas, board, findings, requests, referenced
 * nodes, the agent's knowledge and its team's, and the notes and messages waiting for it
 * (taken by this run, as `notes` says).
 */
export async function loadPromptContext(
  db: Db,
  input: {
    run: Run;
    agent: Agent;
    team: Agent[];
    isolated?: boolean;
    settings: RoomSettings;
    now: Date;
    toolNames: string[];
    notes: NoteReader;
  },
): Promise<LoadedPromptContext> {
  const { run, agent, settings, now } = input;
  // A workflow's run reads what its workflow adds (a brainstorm stage, the prior stages' artifacts); one working alone sees only what it may.
  const workflow = await workflowPromptContext(db, { run, agent, team: input.team });
  const isolation = workflow?.shows ?? (input.isolated ? await shownToAlone(db, run.roomId, agent.id) : null);
  // Everyone else reads nothing the divergent thinkers write until their ideas are released at once.
  const held = isolation ? null : await heldBackWork(db, run.roomId);
  const team = isolation ? input.team.filter((member) => member.id === agent.id) : input.team;
  const [[room], allNodes, allEdges, allBoard, requests, allFindings, vault, areas] = await Promise.all([
    db.select({ template: rooms.template }).from(rooms).where(eq(rooms.id, run.roomId)),
    db.select().from(canvasNodes).where(eq(canvasNodes.roomId, run.roomId)).orderBy(asc(canvasNodes.createdAt)),
    db.select().from(canvasEdges).where(eq(canvasEdges.roomId, run.roomId)).orderBy(asc(canvasEdges.createdAt)),
    readBoard(db, run.roomId, { excludeRunId: run.id, excludeKind: "finding", limit: Math.max(settings.board_entries_in_prompt, 1), now }),
    openRequestsFor(db, run.roomId, agent.persona, {
      includeEntryIds: run.requestEntryId ? [run.requestEntryId] : [],
      now,
    }),
    settings.findings_in_prompt > 0
      ? db
          .select()
          .from(boardEntries)
          .where(and(eq(boardEntries.roomId, run.roomId), eq(boardEntries.kind, "finding")))
          .orderBy(desc(boardEntries.createdAt), desc(boardEntries.id))
          .limit(settings.findings_in_prompt)
      : Promise.resolve([]),
    readVault(db, agent.identity, { areas: 5, insights: 10, tasks: 3 }, run.roomId),
    topAreas(
      db,
      team.filter((member) => member.id !== agent.id).map((member) => member.identity),
      3,
    ),
  ]);
  const visibleTo = (item: { authorId: string; kind?: string }) => !isolation || isolation(item);
  const nodeShown = (node: CanvasNode) => visibleTo(node) && !isHeldBack(held, node.authorId, node.createdAt);
  const nodeRows = allNodes.filter(nodeShown);
  const visibleNodes = new Set(nodeRows.map((node) => node.id));
  // An edge's label is its author's words: held back, or kept from an isolated run, as its author's nodes are.
  const edgeRows = allEdges.filter(
    (edge) =>
      visibleNodes.has(edge.sourceId) &&
      visibleNodes.has(edge.targetId) &&
      visibleTo({ authorId: edge.authorId }) &&
      !isHeldBack(held, edge.authorId, edge.createdAt),
  );
  // Working alone, an agent reads only its own board entries, findings and requests; anyone else, none held back.
  const entryShown = (entry: BoardEntry) => (isolation ? entry.agentId === agent.id : !isHeldBack(held, entry.agentId, entry.createdAt));
  const board = allBoard.filter(entryShown);
  const findingRows = allFindings.filter(entryShown);
  const referenced = (
    run.selectedNodeIds.length ? await db.select().from(canvasNodes).where(inArray(canvasNodes.id, run.selectedNodeIds)) : []
  ).filter(nodeShown);
  // A run taken over before it saved a step has not shown the notes its earlier attempts took.
  const notes = [...(run.attempts > 1 ? await notesDeliveredTo(db, run.id) : []), ...(await takeNotes(db, input.notes))];
  const isMessage = (note: { kind?: string }) => note.kind === "command" || note.kind === "help";
  const extraSections: NonNullable<PromptContext["extraSections"]> = workflow ? [...workflow.sections] : [];
  // Working alone, an agent reads none of the people's answers: the questions could carry another ideator's ideas.
  if (settings.broadcast === "human" && !isolation) {
    const history = await humanQaHistory(db, run.roomId);
    if (history.length) {
      extraSections.push({
        title: "Answers from the people in this room",
        lines: history.map((qa) => `- Q: ${qa.question}\n  A: ${qa.answer}`),
      });
    }
  }
  const ownRequestFirst = requests
    .filter(entryShown)
    .sort((a, b) => (a.id === run.requestEntryId ? -1 : b.id === run.requestEntryId ? 1 : a.createdAt.getTime() - b.createdAt.getTime()));
  return {
    agent: { name: agent.name, persona: agent.persona, role: agent.role, systemPrompt: agent.systemPrompt },
    team: team.map((member) => ({
      name: member.name,
      persona: member.persona,
      role: member.role,
      description: member.description,
      areas: areas.get(member.identity) ?? [],
    })),
    settings,
    run: {
      prompt: run.prompt,
      trigger: run.trigger,
      requestedByName: await requesterName(db, run, team),
      chainDepth: run.chainDepth,
      requestEntryId: run.requestEntryId,
      taskData: run.taskData,
    },
    canvas: { nodes: nodeRows.map(nodeToDto), edges: edgeRows.map(edgeToDto) },
    referencedNodes: referenced.map(nodeToDto),
    board: board.filter((entry) => entry.kind !== "request" || entry.targetPersona !== agent.persona).map(boardEntryToDto),
    requests: ownRequestFirst.map(boardEntryToDto),
    notes: notes.filter((note) => !isMessage(note)).map((note) => note.text),
    messages: notes.filter(isMessage).map((note) => note.text),
    findings: findingRows
      .map(findingToDto)
      .reverse()
      .map((finding) => ({ agentName: finding.agentName, severity: finding.severity, text: finding.finding })),
    knowledge: {
      areas: vault.areas,
      insights: vault.insights.map((insight) => insight.text).reverse(),
      tasks: vault.tasks.map((task) => ({ asked: task.asked, outcome: task.outcome })).reverse(),
    },
    noteIds: notes.map((note) => note.id),
    extraSections,
    ...(workflow?.guidance ? { guidance: workflow.guidance } : {}),
    toolNames: input.toolNames,
    instructions: templateInstructions(room?.template ?? ""),
  };
}
