interface SseMessage {
  id?: string;
  data: string;
  comment?: string;
  retry?: number;
}

/** Parses a server-sent event stream into messages as they arrive. */
export function readSse(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const messages: SseMessage[] = [];
  let done = false;
  const pump = (async () => {
    while (true) {
      const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true });
      let boundary = buffer.indexOf("\n\n");
      while (boundary >= 0) {
        const block = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        const message: SseMessage = { data: "" };
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) message.comment = line.slice(1).trim();
          else if (line.startsWith("id: ")) message.id = line.slice(4);
          else if (line.startsWith("data: ")) data.push(line.slice(6));
          else if (line.startsWith("retry: ")) message.retry = Number(line.slice(7));
        }
        message.data = data.join("\n");
        messages.push(message);
        boundary = buffer.indexOf("\n\n");
      }
    }
    done = true;
  })();
  return {
    messages,
    /** Parsed data of messages that carry an event. */
    events: () => messages.filter((message) => message.data).map((message) => JSON.parse(message.data)),
    isDone: () => done,
    cancel: async () => {
      await reader.cancel().catch(() => {});
      await pump;
    },
  };
}
