/** How a run of a workflow ended, as the step that follows it reads it. */
export interface TurnOutcome {
  status: "succeeded" | "failed" | "cancelled";
  /** The run's last words. */
  text: string;
  durationMs: number;
  at: Date;
}
