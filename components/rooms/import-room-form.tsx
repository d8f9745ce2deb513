"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { apiWrite } from "@/components/room/api";
import { useSubmit } from "@/components/ui/use-submit";
import { type GenerationSetting, type GenerationSettings, SETTING_FILE_KEYS } from "@/lib/models/generation-settings";

interface ImportResponse {
  room: { id: string; title: string };
  agents: {
    id: string;
    name: string;
    model: string;
    endpoint?: string | null;
    /** The variable holding the key its calls carry: its own, or the server's. */
    key: { variable: string; server: boolean } | null;
    generation: GenerationSettings;
    /** Its MCP servers (connected, with the tools they offer, or why not) and the custom tools its file names. */
    tools: ImportedTool[];
  }[];
  /** Whose knowledge vaults the agents use: the file's `team_id`, or one made for this import. */
  team: { id: string; fromFile: boolean };
  settings: Record<string, unknown>;
  ignored: string[];
  notes: string[];
}

interface ImportedTool {
  server: string;
  transport: "streamable-http" | "sse" | "stdio" | "custom";
  connected: boolean;
  tools: string[];
  reason: string | null;
}

/** A tool source as the result shows it: the server and its tools, by the names the server gives them. */
function ToolSource({ source }: { source: ImportedTool }) {
  const prefix = `mcp__${source.server}__`;
  const names = source.tools.map((tool) => (tool.startsWith(prefix) ? tool.slice(prefix.length) : tool));
  return (
    <li data-testid="import-tool" data-connected={source.connected}>
      <strong>{source.server}</strong>{" "}
      {source.transport === "custom" ? (
        <span className="muted">custom tool, not run: {source.reason}</span>
      ) : source.connected ? (
        <span>
          {source.transport === "stdio" ? "local command" : "MCP server"} · {names.length ? names.join(", ") : "no tools"}
        </span>
      ) : (
        <span className="muted">not connected: {source.reason}</span>
      )}
    </li>
  );
}

/** An agent's generation settings as the file names them: "temperature 0.2 · top_p 0.9". */
function describeGeneration(generation: GenerationSettings): string {
  const parts = (Object.entries(generation) as [GenerationSetting, GenerationSettings[GenerationSetting]][]).map(
    ([setting, value]) =>
      `${SETTING_FILE_KEYS[setting]} ${Array.isArray(value) ? value.map((item) => JSON.stringify(item)).join(", ") : String(value)}`,
  );
  return parts.length ? parts.join(" · ") : "the model's defaults";
}

/** The key an agent's calls carry, as the result names it. */
function describeKey(agent: ImportResponse["agents"][number]): string {
  if (agent.model.startsWith("script:")) return "none (offline)";
  if (!agent.key) return "none";
  return agent.key.server ? `the server's ${agent.key.variable}` : agent.key.variable;
}

const BROADCAST_KEYS = ["broadcast", "broadcast_timeout", "max_broadcasts_per_agent", "broadcast_sensitivity", "response_depth"];

/** Creates a room from a multi-agent YAML configuration: paste it or pick a file. */
export function ImportRoomForm() {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [yaml, setYaml] = useState("");
  const [title, setTitle] = useState("");
  const [offline, setOffline] = useState(true);
  const [fileName, setFileName] = useState<string | null>(null);
  const [result, setResult] = useState<ImportResponse | null>(null);
  const { busy, error, submit } = useSubmit();

  return (
    <form
      className="card import-room"
      data-testid="import-room-form"
      onSubmit={submit(async () => {
        const response = await apiWrite<ImportResponse>("/api/rooms/import", "POST", {
          yaml,
          offline,
          ...(title.trim() ? { title: title.trim() } : {}),
          ...(fileName ? { fileName } : {}),
        });
        setResult(response);
        void queryClient.invalidateQueries({ queryKey: ["rooms"] });
      })}
    >
      <h2>Import a team from a configuration file</h2>
      <p className="muted">
        YAML with <code>agents:</code> (each with <code>id</code> and <code>backend.type</code>/<code>model</code>), an optional{" "}
        <code>task:</code> and <code>orchestrator.coordination</code> broadcast settings.
      </p>
      <input
        type="file"
        accept=".yaml,.yml,text/yaml"
        aria-label="Configuration file"
        onChange={async (event) => {
          const file = event.target.files?.[0];
          if (file) {
            setYaml(await file.text());
            setFileName(file.name);
          }
        }}
      />
      <textarea
        data-testid="import-yaml"
        className="import-room__yaml"
        placeholder={"agents:\n  - id: agent_a\n    backend:\n      type: openai\n      model: gpt-5"}
        value={yaml}
        onChange={(event) => setYaml(event.target.value)}
        spellCheck={false}
      />
      <div className="create-room__fields">
        <input
          placeholder="Room title (optional)"
          value={title}
          onChange={(event) => setTitle(event.target.value)}
          aria-label="Room title"
        />
        <label className="import-room__offline">
          <input type="checkbox" checked={offline} onChange={(event) => setOffline(event.target.checked)} data-testid="import-offline" />
          Run on the offline model
        </label>
        <button className="button button--primary" type="submit" disabled={busy || !yaml.trim()} data-testid="import-submit">
          Import
        </button>
      </div>
      {error && (
        <p className="form-error" data-testid="import-error">
          {error}
        </p>
      )}
      {result && (
        <div className="import-room__result" data-testid="import-result">
          <p>
            <strong data-testid="import-title">{result.room.title}</strong> is ready.{" "}
            <button
              type="button"
              className="button button--primary"
              onClick={() => router.push(`/rooms/${result.room.id}`)}
              data-testid="import-open"
            >
              Enter the room
            </button>
          </p>
          <table className="import-room__agents" data-testid="import-agents">
            <thead>
              <tr>
                <th>Agent</th>
                <th>Model</th>
                <th>Endpoint</th>
                <th>Key</th>
                <th>Settings</th>
                <th>Tools</th>
              </tr>
            </thead>
            <tbody>
              {result.agents.map((agent) => (
                <tr key={agent.id} data-testid="import-agent">
                  <td>{agent.name}</td>
                  <td>
                    <code>{agent.model}</code>
                  </td>
                  <td>{agent.endpoint ?? (agent.model.startsWith("script:") ? "offline" : "server default")}</td>
                  <td data-testid="import-agent-key">{describeKey(agent)}</td>
                  <td data-testid="import-agent-settings">{describeGeneration(agent.generation)}</td>
                  <td data-testid="import-agent-tools">
                    {agent.tools.length ? (
                      <ul className="import-room__tools">
                        {agent.tools.map((source) => (
                          <ToolSource key={source.server} source={source} />
                        ))}
                      </ul>
                    ) : (
                      "Parley's own"
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="muted" data-testid="import-broadcast">
            Asking others:{" "}
            {BROADCAST_KEYS.some((key) => key in result.settings)
              ? BROADCAST_KEYS.filter((key) => key in result.settings)
                  .map((key) => `${key.replace(/_/g, " ")} ${String(result.settings[key])}`)
                  .join(", ")
              : "the room's defaults (off)"}
          </p>
          <p className="muted" data-testid="import-team">
            {result.team.fromFile ? (
              <>
                These agents share the knowledge vaults of every import whose file names <code>team_id: {result.team.id}</code>.
              </>
            ) : (
              <>
                These agents&apos; knowledge vaults belong to this import alone. To keep their memories when you import the team again, add{" "}
                <code>team_id: {result.team.id}</code> to the file; anyone who knows that id shares them.
              </>
            )}
          </p>
          {result.notes.map((note) => (
            <p key={note} className="muted">
              {note}
            </p>
          ))}
          {result.ignored.length > 0 && (
            <details data-testid="import-ignored-keys">
              <summary>
                {result.ignored.length} key{result.ignored.length === 1 ? "" : "s"} Parley does not use{" "}
                {result.ignored.length === 1 ? "was" : "were"} ignored
              </summary>
              <ul data-testid="import-ignored">
                {result.ignored.map((key) => (
                  <li key={key}>
                    <code>{key}</code>
                  </li>
                ))}
              </ul>
            </details>
          )}
        </div>
      )}
    </form>
  );
}
