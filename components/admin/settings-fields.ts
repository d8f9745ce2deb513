import { BRAINSTORM_WORK_STAGES, DEFAULT_STAGE_MINUTES, MIN_CONTEXT_TOKEN_BUDGET, type RoomSettings } from "@/lib/rooms/room-settings";

export type SettingField =
  | { key: keyof RoomSettings; label: string; kind: "number"; min: number; max: number; unit?: string }
  /** A limit that may be left empty: the instance's default applies. */
  | { key: keyof RoomSettings; label: string; kind: "optional-number"; min: number; max: number; step?: number; unit?: string }
  | { key: keyof RoomSettings; label: string; kind: "boolean" }
  | { key: keyof RoomSettings; label: string; kind: "choice"; options: readonly string[] }
  | { key: keyof RoomSettings; label: string; kind: "text" }
  /** A list of short texts, one a line. */
  | { key: keyof RoomSettings; label: string; kind: "lines" }
  /** A number for each of `keys`; an empty one takes `fallback`. */
  | {
      key: keyof RoomSettings;
      label: string;
      kind: "numbers";
      keys: readonly string[];
      min: number;
      max: number;
      fallback: number;
      unit?: string;
    };

/** How each room setting is edited in the dashboard, grouped by what it governs. */
export const SETTING_GROUPS: { title: string; fields: SettingField[] }[] = [
  {
    title: "Agent runs",
    fields: [
      { key: "max_concurrent_runs", label: "Runs at once", kind: "number", min: 1, max: 20 },
      { key: "max_steps", label: "Steps per run", kind: "number", min: 1, max: 50 },
      { key: "max_chain_depth", label: "Request chain depth", kind: "number", min: 0, max: 10 },
      { key: "max_requests_per_run", label: "Requests per run", kind: "number", min: 0, max: 10 },
      { key: "script_seed", label: "Scripted model seed", kind: "number", min: 0, max: 2 ** 31 - 1 },
      { key: "task", label: "Task", kind: "text" },
    ],
  },
  {
    title: "Shared board",
    fields: [
      { key: "board_expiry_minutes", label: "Entries expire after", kind: "number", min: 1, max: 10080, unit: "min" },
      { key: "board_entries_in_prompt", label: "Entries in a prompt", kind: "number", min: 0, max: 100 },
      { key: "context_token_budget", label: "Context token budget", kind: "number", min: MIN_CONTEXT_TOKEN_BUDGET, max: 50000 },
    ],
  },
  {
    title: "Scheduler",
    fields: [
      { key: "scheduler_enabled", label: "Start agents on a timer", kind: "boolean" },
      { key: "scheduler_interval_seconds", label: "Every", kind: "number", min: 5, max: 3600, unit: "s" },
      { key: "scheduler_needs_viewers", label: "Only while someone is watching", kind: "boolean" },
    ],
  },
  {
    title: "Outside agents",
    fields: [{ key: "a2a_agents", label: "Publish an A2A agent card for each agent", kind: "boolean" }],
  },
  {
    title: "Budgets and loop guards",
    fields: [
      {
        key: "daily_token_budget",
        label: "Tokens a day (empty: server default, 0: none)",
        kind: "optional-number",
        min: 0,
        max: 1_000_000_000,
      },
      {
        key: "daily_cost_budget_usd",
        label: "Cost a day (empty: server default, 0: none)",
        kind: "optional-number",
        min: 0,
        max: 100_000,
        step: 0.01,
        unit: "$",
      },
      {
        key: "workflow_cost_cap_usd",
        label: "Cost per workflow (empty: server default, 0: none)",
        kind: "optional-number",
        min: 0,
        max: 100_000,
        step: 0.01,
        unit: "$",
      },
      { key: "repeated_tool_call_limit", label: "Same tool call, same arguments", kind: "number", min: 2, max: 20, unit: "times" },
      { key: "repeated_exchange_limit", label: "Same exchange between two agents", kind: "number", min: 2, max: 20, unit: "times" },
    ],
  },
  {
    title: "Team memory",
    fields: [
      { key: "findings_in_prompt", label: "Findings in a prompt", kind: "number", min: 0, max: 100 },
      { key: "max_high_findings_per_run", label: "High findings per run", kind: "number", min: 0, max: 20 },
      { key: "finding_repeat_minutes", label: "Same finding again within", kind: "number", min: 0, max: 1440, unit: "min" },
      { key: "commands_per_minute", label: "Messages per seat", kind: "number", min: 1, max: 600, unit: "a minute" },
      { key: "max_help_per_run", label: "Help requests per run", kind: "number", min: 0, max: 10 },
    ],
  },
  {
    title: "Dialogues and build reviews",
    fields: [
      { key: "dialogue_max_rounds", label: "Rounds of a dialogue (0: off)", kind: "number", min: 0, max: 5 },
      { key: "max_open_dialogues", label: "Dialogues at once", kind: "number", min: 1, max: 10 },
      { key: "max_review_rounds", label: "Review rounds", kind: "number", min: 1, max: 10 },
      { key: "concern_phrases", label: "Concern phrases (one a line)", kind: "lines" },
    ],
  },
  {
    title: "Brainstorm",
    fields: [
      { key: "brainstorm_gate", label: "Who decides at the gate", kind: "choice", options: ["participants", "admins"] },
      {
        key: "brainstorm_stage_minutes",
        label: "Time limit per stage",
        kind: "numbers",
        keys: BRAINSTORM_WORK_STAGES,
        min: 1,
        max: 240,
        fallback: DEFAULT_STAGE_MINUTES,
        unit: "min",
      },
    ],
  },
  {
    title: "Broadcasts (ask_others)",
    fields: [
      { key: "broadcast", label: "Mode", kind: "choice", options: ["off", "agents", "human"] },
      { key: "broadcast_timeout", label: "Timeout", kind: "number", min: 1, max: 3600, unit: "s" },
      { key: "max_broadcasts_per_agent", label: "Active per agent", kind: "number", min: 1, max: 100 },
      { key: "broadcast_sensitivity", label: "Sensitivity", kind: "choice", options: ["low", "medium", "high"] },
      { key: "response_depth", label: "Response depth", kind: "choice", options: ["low", "medium", "high"] },
    ],
  },
];
