import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agents, canvasNodes, externalTokens } from "@/db/schema";
import { seatCookieName, takeSeat } from "@/lib/auth/seats";
import { sendCommand } from "@/lib/commands/send-command";
import { askOthers } from "@/lib/broadcast/ask-others";
import { answerHumanQuestion } from "@/lib/broadcast/answer-question";
import { postBoardEntry } from "@/lib/board/post-entry";
import { writeRoomEvents } from "@/lib/events/write-room-events";
import { latencyResolver, waitForOpenQuestion } from "@/test/broadcasts";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { agentNotes, broadcasts, seats } from "@/db/schema";
import { readEventsAfter } from "@/lib/events/read-events";
import { inviteExternalAgent } from "@/lib/external/external-tokens";
import { createTestRoom, eventually } from "@/test/fixtures";
import { serveRoutes } from "@/test/app-route-server";
import { readSse } from "@/test/sse-reader";
import { useTestRuntime } from "@/test/test-runtime";
import eventsRoute from "@/pages/api/rooms/[roomId]/events";
import { GET as listInvites, POST as invite } from "@/app/api/rooms/[roomId]/external-agents/route";
import { DELETE as revoke } from "@/app/api/rooms/[roomId]/external-agents/[tokenId]/route";
import * as roomMcp from "@/app/api/rooms/[roomId]/mcp/route";
import * as instanceMcp from "@/app/api/mcp/route";

const context = useTestRuntime();
const db = () => context.database.db;
let server: Awaited<ReturnType<typeof serveRoutes>>;
const PACE_VARIABLES = ["PARLEY_SCRIPT_PACE_MS", "PARLEY_SCRIPT_THINK_MS"] as const;
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  // The room's shadows answer on the offline model; no need to watch them type.
  for (const key of PACE_VARIABLES) {
    saved[key] = process.env[key];
    process.env[key] = "0";
  }
  server = await serveRoutes({
    app: {
      "/api/rooms/[roomId]/external-agents": async (request, route) =>
        request.method === "GET" ? listInvites(request, route as never) : invite(request, route as never),
      "/api/rooms/[roomId]/external-agents/[tokenId]": (request, route) => revoke(request, route as never),
      "/api/rooms/[roomId]/mcp": (request, route) => roomMcp.POST(request, route as never),
      "/api/mcp": (request) => instanceMcp.POST(request),
    },
    pages: { "/api/rooms/[roomId]/events": eventsRoute },
  });
});
afterAll(async () => {
  await server?.close();
  for (const key of PACE_VARIABLES) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
});

/** A room with a seated person (her cookie) who invites an outside agent over HTTP, as the page does. */
async function roomWithInvitedAgent(settings: Parameters<typeof createTestRoom>[1] = { broadcast: "agents" }, name = "Claude Code") {
  const { roomId, agents: team } = await createTestRoom(db(), settings);
  const { token: seatToken, seat } = await takeSeat(db(), roomId, { displayName: "Ada" });
  const cookie = `${seatCookieName(roomId)}=${seatToken}`;
  const response = await fetch(server.url(`/api/rooms/${roomId}/external-agents`), {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: JSON.stringify({ name }),
  });
  expect(response.status).toBe(201);
  const body = (await response.json()) as {
    token: string;
    tokenInfo: { id: string; agentId: string; state: string };
    setup: { url: string; claudeCode: string; cursor: string };
  };
  return { roomId, team, seat, cookie, ...body };
}

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: "parley-test-client", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return client;
}

/** A tool's JSON answer, or its error's, as the client reads them. */
async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  const [first] = result.content as { type: string; text: string }[];
  const text = first?.text ?? "";
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // The SDK's own input-validation message is plain text.
  }
  return { isError: result.isError === true, body: body as Record<string, unknown>, text };
}

describe("an outside agent over MCP", () => {
  it("is invited with a token and set-up for Claude Code and Cursor, and joins the roster", async () => {
    const { roomId, token, tokenInfo, setup, cookie } = await roomWithInvitedAgent();
    expect(token).toMatch(/^parley_mcp_/);
    expect(setup.url).toBe(server.url(`/api/rooms/${roomId}/mcp`));
    expect(setup.claudeCode).toBe(
      `claude mcp add --transport http parley-claude-code ${setup.url} --header "Authorization: Bearer ${token}"`,
    );
    expect(JSON.parse(setup.cursor)).toEqual({
      mcpServers: { "parley-claude-code": { url: setup.url, headers: { Authorization: `Bearer ${token}` } } },
    });
    const [agent] = await db().select().from(agents).where(eq(agents.id, tokenInfo.agentId));
    expect(agent).toMatchObject({ name: "Claude Code", model: "external:mcp", roomId });
    const [stored] = await db().select().from(externalTokens).where(eq(externalTokens.id, tokenInfo.id));
    expect(stored!.tokenHash).not.toContain(token);
    expect(stored!.tokenHash).toHaveLength(64);
    const joined = (await readEventsAfter(db(), roomId, 0)).find((event) => event.type === "agent.joined");
    expect(joined).toMatchObject({
      agent: `human:${joined!.agent.slice(6)}`,
      payload: { agent: { name: "Claude Code" }, protocol: "mcp" },
    });

    const listed = await fetch(server.url(`/api/rooms/${roomId}/external-agents`), { headers: { cookie } });
    const { tokens } = (await listed.json()) as { tokens: { id: string; state: string }[] };
    expect(tokens).toEqual([expect.objectContaining({ id: tokenInfo.id, state: "active" })]);
  });

  it("refuses spectators, names already taken and bad input, writing nothing", async () => {
    const { roomId, cookie } = await roomWithInvitedAgent();
    const before = (await readEventsAfter(db(), roomId, 0)).length;
    const post = (body: unknown, headers: Record<string, string> = { cookie }) =>
      fetch(server.url(`/api/rooms/${roomId}/external-agents`), {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const spectator = await post({ name: "Cursor" }, {});
    expect(spectator.status).toBe(403);
    const taken = await post({ name: "Songwriter" });
    expect(taken.status).toBe(409);
    expect(((await taken.json()) as { error: { message: string } }).error.message).toContain(
      "Songwriter is already one of this room's agents",
    );
    const bad = await post({ name: "", expiresInHours: 0 });
    expect(bad.status).toBe(400);
    const unknownKey = await post({ name: "Cursor", admin: true });
    expect(unknownKey.status).toBe(400);
    expect((await readEventsAfter(db(), roomId, 0)).length).toBe(before);
  });

  it("reads the room and creates a note that a viewer's live stream receives", async () => {
    const { roomId, token, tokenInfo } = await roomWithInvitedAgent({ broadcast: "agents", task: "Write a song about the sea" });
    const client = await connect(server.url(`/api/rooms/${roomId}/mcp`), token);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining([
          "read_room",
          "create_note",
          "update_note",
          "link_notes",
          "post_intention",
          "post_contribution",
          "post_finding",
          "post_request",
          "ask_others",
          "read_messages",
          "answer_request",
          "react",
        ]),
      );
      const createNote = tools.find((tool) => tool.name === "create_note")!;
      expect(createNote.inputSchema.required).toEqual(["text"]);

      const room = await callTool(client, "read_room");
      expect(room.isError).toBe(false);
      expect(room.body.task).toBe("Write a song about the sea");
      expect(room.body.you).toEqual({ id: tokenInfo.agentId, name: "Claude Code" });
      expect(room.body.agents).toEqual(expect.arrayContaining([expect.objectContaining({ name: "Claude Code", kind: "outside agent" })]));

      const viewer = await fetch(server.url(`/api/rooms/${roomId}/events`));
      const stream = readSse(viewer.body!);
      const created = await callTool(client, "create_note", { text: "A verse about tides", kind: "lyric" });
      expect(created.isError).toBe(false);
      const note = (created.body as { note: { id: string } }).note;
      const seen = await eventually(() => {
        const message = stream.messages
          .filter((each) => each.data)
          .map((each) => JSON.parse(each.data))
          .find((event) => event.type === "node.created" && event.payload.node.id === note.id);
        if (!message) throw new Error("The viewer has not seen the note yet");
        return message;
      }, 10_000);
      expect(seen).toMatchObject({
        agent: tokenInfo.agentId,
        agent_name: "Claude Code",
        payload: { node: { text: "A verse about tides", authorKind: "agent" } },
      });
      expect(seen.correlation_id).toMatch(/^mcp-claudecode_/);
      await stream.cancel();

      const linked = await callTool(client, "create_note", { text: "The chorus" });
      const link = await callTool(client, "link_notes", {
        source_id: note.id,
        target_id: (linked.body as { note: { id: string } }).note.id,
        label: "leads to",
      });
      expect(link.isError).toBe(false);
      const intention = await callTool(client, "post_intention", { plan: "Write the bridge next" });
      expect(intention.body).toMatchObject({ kind: "intention" });
      const finding = await callTool(client, "post_finding", {
        finding: "The metre of verse two is off",
        severity: "low",
        note_ids: [note.id],
      });
      expect(finding.body).toMatchObject({ repeated: false });
      const resources = await client.readResource({ uri: "parley://room/task" });
      expect(resources.contents[0]).toMatchObject({ text: "Write a song about the sea" });
    } finally {
      await client.close();
    }
  });

  it("answers bad input with a clear tool error and writes nothing", async () => {
    const { roomId, token } = await roomWithInvitedAgent();
    const other = await createTestRoom(db());
    const [foreign] = await db()
      .insert(canvasNodes)
      .values({
        id: "foreign-node",
        roomId: other.roomId,
        kind: "note",
        text: "elsewhere",
        x: 0,
        y: 0,
        authorKind: "human",
        authorId: "human:x",
        authorName: "X",
      })
      .returning();
    const client = await connect(server.url("/api/mcp"), token);
    try {
      const before = (await readEventsAfter(db(), roomId, 0)).length;
      const empty = await callTool(client, "create_note", {});
      expect(empty.isError).toBe(true);
      expect(empty.text).toMatch(/text/i);
      const half = await callTool(client, "create_note", { text: "x", x: 10 });
      expect(half).toMatchObject({ isError: true, body: { error: { code: "bad_request", message: "Give both x and y, or neither." } } });
      const elsewhere = await callTool(client, "update_note", { note_id: foreign!.id, text: "mine now" });
      expect(elsewhere.isError).toBe(true);
      expect(elsewhere.text).toMatch(/not found/i);
      const [untouched] = await db().select().from(canvasNodes).where(eq(canvasNodes.id, foreign!.id));
      expect(untouched!.text).toBe("elsewhere");
      const stranger = await callTool(client, "post_request", { target_agent: "Nobody", ask: "Help" });
      expect(stranger.body).toMatchObject({ error: { code: "bad_request" } });
      expect(String((stranger.body as { error: { message: string } }).error.message)).toContain("Ask one of:");
      expect((await readEventsAfter(db(), roomId, 0)).length).toBe(before);
    } finally {
      await client.close();
    }
  });

  it("asks the others and gets the shadows' answers", async () => {
    const { roomId, token, tokenInfo } = await roomWithInvitedAgent({ broadcast: "agents", broadcast_timeout: 20 });
    const client = await connect(server.url(`/api/rooms/${roomId}/mcp`), token);
    try {
      const asked = await callTool(client, "ask_others", {
        question: "Which mood should the chorus have?",
        target_agents: ["Songwriter", "Storyteller"],
      });
      expect(asked.isError).toBe(false);
      const responses = (asked.body as { responses: { responder_name: string; content: string; is_human: boolean }[] }).responses;
      expect(responses.map((response) => response.responder_name).sort()).toEqual(["Songwriter", "Storyteller"]);
      for (const response of responses) expect(response.content.length).toBeGreaterThan(0);
      const events = await readEventsAfter(db(), roomId, 0);
      const question = events.find((event) => event.type === "broadcast.asked")!;
      expect(question.agent).toBe(tokenInfo.agentId);
      const answers = events.filter((event) => event.type === "broadcast.response");
      expect(answers).toHaveLength(2);
      for (const answer of answers) expect(answer.correlation_id).toBe(question.correlation_id);
    } finally {
      await client.close();
    }
  });

  it("receives people's @messages: as a notification while it listens, and from read_messages once", async () => {
    const { roomId, token, seat, tokenInfo } = await roomWithInvitedAgent();
    const client = await connect(server.url(`/api/rooms/${roomId}/mcp`), token);
    const notified: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      notified.push(notification.params.data);
    });
    try {
      // The client opens its listening stream once initialized; a message sent before it is open is only in read_messages.
      await eventually(() => expect(server.answered).toContain(`GET /api/rooms/${roomId}/mcp 200`), 10_000);
      // Waits for the message to arrive, so the person's message is sent while the call listens.
      const reading = callTool(client, "read_messages", { wait_seconds: 20 });
      await eventually(async () => {
        const sent = await sendCommand(db(), roomId, seat, "@Claude Code please check the chorus rhymes");
        expect(sent).toMatchObject({ kind: "message", command: { agentId: tokenInfo.agentId, runId: null, delivery: "inbox" } });
      });
      const read = await reading;
      expect(read.isError).toBe(false);
      const messages = (read.body as { messages: { kind: string; text: string }[] }).messages;
      expect(messages).toEqual([
        expect.objectContaining({ kind: "command", text: expect.stringContaining("please check the chorus rhymes") }),
      ]);
      const again = await callTool(client, "read_messages");
      expect((again.body as { messages: unknown[] }).messages).toEqual([]);
      const events = await readEventsAfter(db(), roomId, 0);
      expect(events.find((event) => event.type === "command.delivered")).toMatchObject({ payload: { agentId: tokenInfo.agentId } });
      expect(events.some((event) => event.type === "run.queued")).toBe(false);
      await eventually(
        () => expect(notified).toEqual([expect.objectContaining({ kind: "message", from: "Ada", text: "please check the chorus rhymes" })]),
        10_000,
      );
    } finally {
      await client.close();
    }
  });

  it("does not write twice when the same MCP request is sent again", async () => {
    const { roomId, token } = await roomWithInvitedAgent();
    const client = await connect(server.url(`/api/rooms/${roomId}/mcp`), token);
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    // A second transport on the same session plays a client retrying a request it never got the answer to.
    const retrying = new StreamableHTTPClientTransport(new URL(server.url(`/api/rooms/${roomId}/mcp`)), {
      sessionId,
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const answers: JSONRPCMessage[] = [];
    retrying.onmessage = (message) => answers.push(message);
    await retrying.start();
    try {
      const request: JSONRPCMessage = {
        jsonrpc: "2.0",
        id: 9001,
        method: "tools/call",
        params: { name: "create_note", arguments: { text: "Only once" } },
      };
      await retrying.send(request);
      await eventually(() => expect(answers).toHaveLength(1), 10_000);
      // Sent again once the first answer is in, as a client does that never received it.
      await retrying.send(request);
      await eventually(() => expect(answers).toHaveLength(2), 10_000);
      const ids = answers.map(
        (answer) => JSON.parse((answer as unknown as { result: { content: { text: string }[] } }).result.content[0]!.text).note.id,
      );
      expect(ids[0]).toBe(ids[1]);
      const notes = await db()
        .select()
        .from(canvasNodes)
        .where(and(eq(canvasNodes.roomId, roomId), eq(canvasNodes.text, "Only once")));
      expect(notes).toHaveLength(1);
    } finally {
      await retrying.close();
      await client.close();
    }
  });

  it("is refused with a clear reason: no token, an unknown one, another room's, a revoked one and an expired one", async () => {
    const { roomId, token, tokenInfo, cookie } = await roomWithInvitedAgent();
    const other = await createTestRoom(db());
    const refusedWith = async (url: string, bearer: string | null) => {
      const client = new Client({ name: "parley-test-client", version: "1.0.0" });
      const transport = new StreamableHTTPClientTransport(
        new URL(url),
        bearer ? { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } } : {},
      );
      const error = await client.connect(transport).then(
        () => null,
        (failure: unknown) => failure as Error & { code?: number },
      );
      await client.close();
      expect(error).not.toBeNull();
      return error!;
    };
    expect((await refusedWith(server.url("/api/mcp"), null)).message).toContain("Send the token Parley gave you");
    const unknown = await refusedWith(server.url("/api/mcp"), "parley_mcp_not-a-real-token");
    expect(unknown.code).toBe(401);
    expect(unknown.message).toContain("not known here");
    const wrongRoom = await refusedWith(server.url(`/api/rooms/${other.roomId}/mcp`), token);
    expect(wrongRoom.code).toBe(403);
    expect(wrongRoom.message).toContain("belongs to another room");

    // A session open when the token is revoked is refused from its very next call.
    const client = await connect(server.url(`/api/rooms/${roomId}/mcp`), token);
    expect((await callTool(client, "read_room")).isError).toBe(false);
    const revoked = await fetch(server.url(`/api/rooms/${roomId}/external-agents/${tokenInfo.id}`), {
      method: "DELETE",
      headers: { cookie },
    });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ token: { state: "revoked" }, alreadyRevoked: false });
    const afterRevoke = await client.callTool({ name: "read_room", arguments: {} }).then(
      () => null,
      (failure: unknown) => failure as Error,
    );
    expect(afterRevoke?.message).toContain("was revoked");
    await client.close();
    expect((await refusedWith(server.url("/api/mcp"), token)).message).toContain("was revoked");
    expect((await readEventsAfter(db(), roomId, 0)).some((event) => event.type === "agent.token_revoked")).toBe(true);

    const expired = await inviteExternalAgent(db(), roomId, { id: "admin", name: "Admin" }, { name: "Old Cursor", expiresInHours: 1 });
    await db()
      .update(externalTokens)
      .set({ expiresAt: new Date(Date.now() - 60_000) })
      .where(eq(externalTokens.id, expired.tokenInfo.id));
    const expiredError = await refusedWith(server.url("/api/mcp"), expired.token!);
    expect(expiredError.code).toBe(401);
    expect(expiredError.message).toContain("expired");
  });
});

describe("an outside agent as a teammate of Parley's agents", () => {
  it("answers a question a Parley agent puts to it by name, and the asker gets its answer", async () => {
    const { roomId, token, tokenInfo } = await roomWithInvitedAgent({ broadcast: "agents", broadcast_timeout: 30 });
    const client = await connect(server.url(`/api/rooms/${roomId}/mcp`), token);
    try {
      const songwriter = await agentByPersona(context.database, roomId, "songwriter");
      const asking = askOthers(
        { database: context.database, bus: context.runtime.bus, resolveModel: latencyResolver },
        {
          roomId,
          asker: songwriter,
          runId: null,
          correlationId: "ask-outside",
          question: "Does the chorus scan?",
          targetAgents: ["Claude Code"],
        },
      );
      const question = await eventually(async () => {
        const read = await callTool(client, "read_messages");
        const [open] = (read.body as { open_questions: { question_id: string; from: string; question: string }[] }).open_questions;
        if (!open) throw new Error("The question has not reached the outside agent yet");
        return open;
      }, 10_000);
      expect(question).toMatchObject({ from: "Songwriter", question: "Does the chorus scan?" });
      const answered = await callTool(client, "answer_question", { question_id: question.question_id, answer: "Yes, in four beats" });
      expect(answered.body).toMatchObject({ answered: true });
      const again = await callTool(client, "answer_question", { question_id: question.question_id, answer: "Once more" });
      expect(again.isError).toBe(true);
      const outcome = await asking;
      expect(outcome).toMatchObject({ status: "complete", responses: [{ responder_name: "Claude Code", content: "Yes, in four beats" }] });
      const response = (await readEventsAfter(db(), roomId, 0)).find((event) => event.type === "broadcast.response")!;
      expect(response).toMatchObject({ agent: tokenInfo.agentId, correlation_id: "ask-outside" });
    } finally {
      await client.close();
    }
  });

  it("is not waited for when a Parley agent asks everyone", async () => {
    const { roomId } = await roomWithInvitedAgent({ broadcast: "agents", broadcast_timeout: 30 });
    const songwriter = await agentByPersona(context.database, roomId, "songwriter");
    const outcome = await askOthers(
      { database: context.database, bus: context.runtime.bus, resolveModel: latencyResolver },
      { roomId, asker: songwriter, runId: null, correlationId: "ask-everyone", question: "Which key?" },
    );
    expect(outcome.status).toBe("complete");
    expect(outcome.responses.map((response) => response.responder_name)).not.toContain("Claude Code");
  });

  it("answers a help request addressed to it, and the answer goes back to the asker as a message", async () => {
    const { roomId, token, tokenInfo } = await roomWithInvitedAgent();
    const storyteller = await agentByPersona(context.database, roomId, "storyteller");
    const { result: request } = await writeRoomEvents(db(), roomId, (tx, emit, at) =>
      postBoardEntry(tx, emit, {
        roomId,
        kind: "request",
        content: { targetPersona: "external-claudecode", ask: "Which rhyme scheme fits?", refNodeIds: [], help: true },
        author: { id: storyteller.id, name: storyteller.name, agentId: storyteller.id, runId: null },
        expiryMinutes: 60,
        correlationId: "help-outside",
        requestStatus: "queued",
        at,
      }),
    );
    const client = await connect(server.url(`/api/rooms/${roomId}/mcp`), token);
    try {
      const read = await callTool(client, "read_messages");
      expect((read.body as { requests: unknown[] }).requests).toEqual([
        { request_id: request!.id, from: "Storyteller", ask: "Which rhyme scheme fits?", note_ids: [] },
      ]);
      const answered = await callTool(client, "answer_request", { request_id: request!.id, answer: "ABAB suits a ballad" });
      expect(answered.body).toMatchObject({ status: "answered" });
      const [note] = await db().select().from(agentNotes).where(eq(agentNotes.agentId, storyteller.id));
      expect(note).toMatchObject({ kind: "help", text: expect.stringContaining("ABAB suits a ballad") });
      const events = await readEventsAfter(db(), roomId, 0);
      expect(events.find((event) => event.type === "help.answered")).toMatchObject({
        agent: tokenInfo.agentId,
        correlation_id: "help-outside",
        payload: { askerAgentId: storyteller.id, helperAgentId: tokenInfo.agentId, answered: true },
      });
      const twice = await callTool(client, "answer_request", { request_id: request!.id, answer: "Again" });
      expect(twice).toMatchObject({ isError: true, body: { error: { message: "That request is answered already." } } });
    } finally {
      await client.close();
    }
  });

  it("asks a Parley agent for help and gets its answer back", async () => {
    const { roomId, token } = await roomWithInvitedAgent();
    const worker = await startTestWorker(context.database);
    const client = await connect(server.url(`/api/rooms/${roomId}/mcp`), token);
    try {
      const asked = await callTool(client, "post_request", {
        target_agent: "Songwriter",
        ask: "Give me a title for the song",
        help: true,
        wait_seconds: 60,
      });
      expect(asked.isError).toBe(false);
      const body = asked.body as { request_id: string; target: string; messages: { kind: string; text: string }[] };
      expect(body.target).toBe("Songwriter");
      expect(body.messages).toEqual([
        expect.objectContaining({ kind: "help", text: expect.stringMatching(/^Songwriter (answered|could not answer) your help request/) }),
      ]);
      const events = await readEventsAfter(db(), roomId, 0);
      const posted = events.find((event) => event.type === "board.posted")!;
      const help = events.find((event) => event.type === "help.answered")!;
      expect(help.correlation_id).toBe(posted.correlation_id);
    } finally {
      await client.close();
      await worker.stop();
    }
  });

  it("in human mode, asks the people and gets their answer", async () => {
    const { roomId, token, seat } = await roomWithInvitedAgent({ broadcast: "human", broadcast_timeout: 30 });
    const client = await connect(server.url(`/api/rooms/${roomId}/mcp`), token);
    try {
      const asking = callTool(client, "ask_others", { question: "Major or minor?", options: ["Major", "Minor"] });
      const open = await waitForOpenQuestion(context.database, roomId, 10_000, "Major or minor?");
      const [seated] = await db().select().from(seats).where(eq(seats.id, seat.id));
      await answerHumanQuestion(db(), roomId, open.id, seated!, "Minor");
      const asked = await asking;
      expect(asked.body).toMatchObject({ status: "complete", responses: [{ content: "Minor", is_human: true }] });
      const [row] = await db().select().from(broadcasts).where(eq(broadcasts.id, open.id));
      expect(row!.mode).toBe("human");
    } finally {
      await client.close();
    }
  });
});
