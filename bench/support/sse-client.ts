import http from "node:http";

export interface SseClient {
  ready: Promise<void>;
  close(): void;
}

/**
 * A minimal server-sent events client on node:http (one socket each, no pooling) that
 * hands every `data:` payload to `onData` with the time it arrived.
 */
export function connectSse(url: string, onData: (data: string, receivedAt: number, id: string | null) => void): SseClient {
  let request: http.ClientRequest | null = null;
  const ready = new Promise<void>((resolve, reject) => {
    request = http.get(url, { agent: false, headers: { accept: "text/event-stream" } }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`SSE ${url} answered ${response.statusCode}`));
      response.setEncoding("utf8");
      let buffer = "";
      response.on("data", (chunk: string) => {
        const receivedAt = performance.now();
        buffer += chunk;
        let boundary = buffer.indexOf("\n\n");
        while (boundary >= 0) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          let id: string | null = null;
          let data = "";
          for (const line of block.split("\n")) {
            if (line.startsWith(": connected")) resolve();
            else if (line.startsWith("id: ")) id = line.slice(4);
            else if (line.startsWith("data: ")) data += line.slice(6);
          }
          if (data) onData(data, receivedAt, id);
          boundary = buffer.indexOf("\n\n");
        }
      });
    });
    request.on("error", reject);
  });
  return { ready, close: () => request?.destroy() };
}
