import { randomUUID } from "node:crypto";
import { type AgentCard, type Message, type Part, Role, TaskState } from "@a2a-js/sdk";
import { AgentEvent, type ExecutionEventBus } from "@a2a-js/sdk/server";

export function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" };
}

/** The text of a message's text parts. */
export function messageText(message: Message): string {
  return message.parts
    .map((part) => (part.content?.$case === "text" ? part.content.value : ""))
    .filter(Boolean)
    .join("\n")
    .trim();
}

function agentMessage(taskId: string, contextId: string, text: string): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/**
 * Runs one A2A task on the event bus: announces it (submitted, then working), lets `work` find
 * the answer, and ends it completed with the answer as its artifact, or failed with the reason.
 */
export async function runA2aTask(
  bus: ExecutionEventBus,
  ids: { taskId: string; contextId: string; userMessage: Message },
  work: () => Promise<string>,
): Promise<void> {
  const { taskId, contextId } = ids;
  const status = (state: TaskState, text?: string) =>
    AgentEvent.statusUpdate({
      taskId,
      contextId,
      status: { state, message: text ? agentMessage(taskId, contextId, text) : undefined, timestamp: new Date().toISOString() },
      metadata: undefined,
    });
  bus.publish(
    AgentEvent.task({
      id: taskId,
      contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [],
      history: [ids.userMessage],
      metadata: undefined,
    }),
  );
  bus.publish(status(TaskState.TASK_STATE_WORKING));
  try {
    const answer = await work();
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: randomUUID(),
          name: "answer",
          description: "",
          parts: [textPart(answer)],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(status(TaskState.TASK_STATE_COMPLETED));
  } catch (error) {
    bus.publish(status(TaskState.TASK_STATE_FAILED, (error as Error).message));
  }
  bus.finished();
}

/** An agent card with one JSON-RPC interface at `url`. */
export function agentCard(input: {
  name: string;
  description: string;
  url: string;
  streaming: boolean;
  skills?: { id: string; name: string; description: string }[];
  bearer?: boolean;
}): AgentCard {
  return {
    name: input.name,
    description: input.description,
    supportedInterfaces: [{ url: input.url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: input.streaming, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: input.bearer
      ? {
          bearer: {
            scheme: { $case: "httpAuthSecurityScheme", value: { description: "A Parley room token", scheme: "Bearer", bearerFormat: "" } },
          },
        }
      : {},
    securityRequirements: input.bearer ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: (input.skills ?? []).map((skill) => ({
      ...skill,
      tags: [],
      examples: [],
      inputModes: ["text/plain"],
      outputModes: ["text/plain"],
      securityRequirements: [],
    })),
    signatures: [],
  };
}
