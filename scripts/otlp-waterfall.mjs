// A local OTLP/HTTP receiver (JSON encoding) that shows the spans it was sent as a waterfall per trace:
//   node scripts/otlp-waterfall.mjs [port]        (default 4318, the OTLP/HTTP port)
//   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 npm start
// then open http://127.0.0.1:4318/. For looking at Parley's traces without a tracing backend; it keeps
// spans in memory only.
import { createServer } from "node:http";

const port = Number(process.argv[2] ?? 4318);
/** @type {Map<string, object>} spans by trace and span id, the latest copy of each */
const spans = new Map();

function value(attribute) {
  const v = attribute.value ?? {};
  return v.stringValue ?? v.intValue ?? v.doubleValue ?? v.boolValue ?? JSON.stringify(v);
}

function html(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

function page() {
  const traces = new Map();
  for (const span of spans.values()) {
    if (!traces.has(span.traceId)) traces.set(span.traceId, []);
    traces.get(span.traceId).push(span);
  }
  const sections = [];
  // The biggest traces first; one or two spans alone (a seat taken, a note moved) are left out.
  const shown = [...traces].filter(([, list]) => list.length > 2).sort((a, b) => b[1].length - a[1].length);
  for (const [traceId, list] of shown) {
    const ids = new Set(list.map((span) => span.spanId));
    const children = new Map();
    const roots = [];
    for (const span of list) {
      if (span.parentSpanId && ids.has(span.parentSpanId)) {
        if (!children.has(span.parentSpanId)) children.set(span.parentSpanId, []);
        children.get(span.parentSpanId).push(span);
      } else roots.push(span);
    }
    const start = Math.min(...list.map((span) => Number(BigInt(span.startTimeUnixNano) / 1000n)));
    const end = Math.max(...list.map((span) => Number(BigInt(span.endTimeUnixNano) / 1000n)));
    const total = Math.max(end - start, 1);
    const rows = [];
    const byStart = (a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1);
    const walk = (span, depth) => {
      const from = Number(BigInt(span.startTimeUnixNano) / 1000n) - start;
      const length = Number((BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano)) / 1000n);
      const attributes = Object.fromEntries((span.attributes ?? []).map((a) => [a.key, value(a)]));
      const detail = [
        attributes["gen_ai.request.model"] && `model ${attributes["gen_ai.request.model"]}`,
        attributes["gen_ai.usage.input_tokens"] !== undefined &&
          `${attributes["gen_ai.usage.input_tokens"]} in / ${attributes["gen_ai.usage.output_tokens"]} out tokens`,
        attributes["parley.cost_usd"] !== undefined && `$${Number(attributes["parley.cost_usd"]).toFixed(4)}`,
      ]
        .filter(Boolean)
        .join(" · ");
      rows.push(
        `<tr><td style="padding-left:${depth * 14 + 4}px" title="${html(attributes["parley.event.type"] ?? "")}">${html(span.name)}` +
          `${detail ? `<small> ${html(detail)}</small>` : ""}</td>` +
          `<td class="lane"><span class="bar${attributes["gen_ai.operation.name"] ? ` op-${html(attributes["gen_ai.operation.name"])}` : ""}" ` +
          `style="left:${((from / total) * 100).toFixed(2)}%;width:max(2px,${((length / total) * 100).toFixed(2)}%)"></span></td>` +
          `<td class="ms">${(length / 1000).toFixed(1)} ms</td></tr>`,
      );
      for (const child of (children.get(span.spanId) ?? []).sort(byStart)) walk(child, depth + 1);
    };
    for (const root of roots.sort(byStart)) walk(root, 0);
    const correlation = list.flatMap((span) => span.attributes ?? []).find((attribute) => attribute.key === "parley.correlation_id");
    sections.push(
      `<section><h2>Trace ${html(traceId)}</h2><p>${list.length} spans · ${(total / 1000).toFixed(0)} ms` +
        `${correlation ? ` · workflow ${html(value(correlation))}` : ""}</p><table>${rows.join("")}</table></section>`,
    );
  }
  return `<!doctype html><meta charset="utf-8"><title>Traces</title><style>
body{font:13px system-ui,sans-serif;margin:16px;color:#212529}h2{font-size:14px;margin:16px 0 2px}p{color:#666;margin:0 0 6px}
table{border-collapse:collapse;width:100%}td{border-bottom:1px solid #eee;padding:2px 4px;white-space:nowrap}
td:first-child{width:38%;overflow:hidden;text-overflow:ellipsis;max-width:0}small{color:#666}
.lane{position:relative;width:52%}.bar{position:absolute;top:4px;height:10px;background:#adb5bd;border-radius:2px}
.op-invoke_agent{background:#4dabf7}.op-chat{background:#f59f00}.op-execute_tool{background:#69db7c}.ms{text-align:right;color:#666;width:10%}
</style><h1 style="font-size:16px">Spans received (${spans.size})</h1>${sections.join("") || "<p>None yet.</p>"}`;
}

createServer((request, response) => {
  if (request.method === "POST" && request.url === "/v1/traces") {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        for (const resource of body.resourceSpans ?? [])
          for (const scope of resource.scopeSpans ?? [])
            for (const span of scope.spans ?? []) spans.set(`${span.traceId}/${span.spanId}`, span);
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      } catch {
        response.writeHead(400, { "content-type": "application/json" }).end('{"error":"not OTLP JSON"}');
      }
    });
    return;
  }
  if (request.method === "GET" && request.url === "/") {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page());
    return;
  }
  response.writeHead(404).end();
}).listen(port, "127.0.0.1", () => console.log(`OTLP/HTTP receiver and waterfall on http://127.0.0.1:${port}/`));
