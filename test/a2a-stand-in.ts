import { DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { agentCard, messageText, runA2aTask } from "@/lib/external/a2a/a2a-events";
import { agentCardResponse, serveA2aJsonRpc } from "@/lib/external/a2a/a2a-web-handler";
import { serveRoutes } from "./app-route-server";

/**
 * An agent of another system made with the A2A SDK's own server: it answers every message with
 * `answer(text)` as a completed task's artifact, and records what it was sent. Its card is at
 * `cardUrl`, its JSON-RPC endpoint beside it.
 */
export async function startA2aStandIn(options: { streaming: boolean; answer?: (text: string) => string }) {
  const received: string[] = [];
  const answer = options.answer ?? ((text: string) => `Stand-in heard: ${text.slice(0, 200)}`);
  let handler: DefaultRequestHandler | null = null;
  const server = await serveRoutes({
    app: {
      "/card": async () => agentCardResponse(await handler!.getAgentCard()),
      "/rpc": (request) => serveA2aJsonRpc(handler!, request),
    },
  });
  const card = agentCard({
    name: "Stand-in",
    description: "Answers what it is sent",
    url: server.url("/rpc"),
    streaming: options.streaming,
  });
  handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), {
    execute: async (context, bus) => {
      const text = messageText(context.userMessage);
      received.push(text);
      await runA2aTask(bus, { taskId: context.taskId, contextId: context.contextId, userMessage: context.userMessage }, async () =>
        answer(text),
      );
    },
    cancelTask: async () => {},
  });
  return { cardUrl: server.url("/card"), base: server.url(""), received, close: server.close };
}
