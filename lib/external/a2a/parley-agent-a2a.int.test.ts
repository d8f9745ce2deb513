import { randomUUID } from "node:crypto";
import { Role, type Task, TaskState } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as cardRoute } from "@/app/api/rooms/[roomId]/agents/[agentId]/a2a/route";
import { inviteExternalAgent } from "@/lib/external/external-tokens";
import { readEventsAfter } from "@/lib/events/read-events";
import { updateRoom } from "@/lib/rooms/update-room";
import { agentByPersona, startTestWorker } from "@/test/agents";
import { serveRoutes } from "@/test/app-route-server";
import { createTestRoom } from "@/test/fixtures";
import { useTestRuntime } from "@/test/test-runtime";
import { textPart } from "./a2a-events";
import { taskText } from "@/lib/models/a2a-model";

const context = useTestRuntime();
const db = () => context.database.db;
let server: Awaited<ReturnType<typeof serveRoutes>>;
let worker: Awaited<ReturnType<typeof startTestWorker>>;

beforeAll(async () => {
  server = await serveRoutes({
    app: { "/api/rooms/[roomId]/agents/[agentId]/a2a": (request, route) => cardRoute(request, route as never) },
  });
  worker = await startTestWorker(context.database);
});
afterAll(async () => {
  await worker?.stop();
  await server?.close();
});

const message = (text: string) => ({
  tenant: "",
  message: {
    messageId: randomUUID(),
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: undefined,
  metadata: undefined,
});

async function publishingRoom() {
  const { roomId } = await createTestRoom(db());
  await updateRoom(db(), roomId, { settings: { a2a_agents: true } });
  const songwriter = await agentByPersona(context.database, roomId, "songwriter");
  const { token, tokenInfo } = await inviteExternalAgent(db(), roomId, { id: "admin", name: "Admin" }, { name: "Partner System" });
  return { roomId, songwriter, token: token!, tokenInfo, cardUrl: server.url(`/api/rooms/${roomId}/agents/${songwriter.id}/a2a`) };
}

describe("a Parley agent as an A2A agent", () => {
  it("answers an A2A client's message as a completed task, as a help request the room sees", async () => {
    const { roomId, songwriter, token, tokenInfo, cardUrl } = await publishingRoom();
    const client = await new ClientFactory().createFromUrl(cardUrl, "");
    const card = await client.getAgentCard();
    expect(card.name).toBe("Songwriter (Parley)");
    expect(card.supportedInterfaces[0]).toMatchObject({ url: cardUrl, protocolBinding: "JSONRPC" });
    const result = await client.sendMessage(message("What should the chorus be about?"), {
      serviceParameters: { Authorization: `Bearer ${token}` },
    });
    expect("messageId" in result).toBe(false);
    const task = result as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(taskText(task).length).toBeGreaterThan(0);
    const events = await readEventsAfter(db(), roomId, 0);
    const asked = events.find((event) => event.type === "board.posted")!;
    expect(asked).toMatchObject({ agent: tokenInfo.agentId, payload: { entry: { content: { targetPersona: "songwriter", help: true } } } });
    const answered = events.find((event) => event.type === "help.answered")!;
    expect(answered).toMatchObject({ agent: songwriter.id, correlation_id: asked.correlation_id, payload: { text: taskText(task) } });
  });

  it("refuses a message without a room token, with another room's, and rooms that do not publish", async () => {
    const { cardUrl } = await publishingRoom();
    const client = await new ClientFactory().createFromUrl(cardUrl, "");
    await expect(client.sendMessage(message("Hello?"))).rejects.toThrow(/401|token/i);
    const other = await publishingRoom();
    await expect(client.sendMessage(message("Hello?"), { serviceParameters: { Authorization: `Bearer ${other.token}` } })).rejects.toThrow(
      /403|another room/i,
    );
    const { roomId } = await createTestRoom(db());
    const quiet = await agentByPersona(context.database, roomId, "songwriter");
    const response = await fetch(server.url(`/api/rooms/${roomId}/agents/${quiet.id}/a2a`));
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain("does not publish its agents over A2A");
  });
});
