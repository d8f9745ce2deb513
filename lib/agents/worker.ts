import { randomUUID } from "node:crypto";
import type { Database } from "@/db";
import type { Run } from "@/db/schema";
import type { ModelResolver } from "@/lib/models/registry";
import type { RoomBus } from "@/lib/realtime/bus";
import { RUN_CANCELS_CHANNEL } from "./cancel-run";
import { withCause } from "@/lib/events/cause";
import { claimNextRun, heartbeatRun, releaseRun } from "./claim-run";
import { RUNS_CHANNEL } from "./enqueue-run";
import { type ExecuteDeps, type StopReason, executeRun } from "./execute-run";
import { WORKER_BEAT_MS, beatWorker, registerWorker, unregisterWorker } from "./worker-registry";

/**
 * A run's lease by default: with the heartbeat four times a lease and workers looking for work
 * every second, a run whose instance died is taken over within about nine seconds, while a live
 * worker keeps its runs through six seconds of missed or slow heartbeats.
 */
export const DEFAULT_LEASE_MS = 8_000;

export interface WorkerOptions {
  /**
   * Unique per worker. Each claim holds its lease under this name and a token of its own, so
   * a run this worker claims again (its lease lapsed while the database was out of reach) is
   * not also still held by the copy that was running it.
   */
  owner: string;
  resolveModel: ModelResolver;
  /** Runs this worker executes at once (across rooms; each room has its own limit). */
  maxParallel?: number;
  /**
   * How long a claimed run stays this worker's without a heartbeat (`DEFAULT_LEASE_MS`): a worker
   * whose instance died loses its runs this long after its last heartbeat.
   */
  leaseMs?: number;
  /** How often the lease is extended: a quarter of the lease by default, so three heartbeats in a row can fail or lag. */
  heartbeatMs?: number;
  /** Fallback poll when no notification arrives (a lease may have expired meanwhile). */
  pollMs?: number;
  /** How often the worker tells the database it is alive, busy or idle (`WORKER_BEAT_MS`): the dashboard lists it from that. */
  beatMs?: number;
  execute?: Partial<Omit<ExecuteDeps, "database" | "bus" | "resolveModel">>;
  onError?: (error: unknown) => void;
}

/**
 * Executes queued agent runs: claims them under a lease, keeps the lease alive with a
 * heartbeat while the run streams, and stops a run when it is cancelled or its lease is
 * lost. Several workers (in one process or many) share the queue safely.
 */
export class AgentWorker {
  private readonly active = new Map<string, { stop: (reason: StopReason) => void; done: Promise<void> }>();
  private running = false;
  private wake: (() => void) | null = null;
  /** Set by `poke` while the loop is not asleep (claiming, say): the loop then looks again at once. */
  private poked = false;
  private loopDone: Promise<void> | null = null;
  private unlisten: (() => Promise<void>) | null = null;
  private beat: NodeJS.Timeout | null = null;
  private readonly leaseMs: number;
  private readonly heartbeatMs: number;

  constructor(
    private readonly database: Database,
    private readonly bus: RoomBus,
    private readonly options: WorkerOptions,
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.heartbeatMs = options.heartbeatMs ?? Math.max(50, Math.floor(this.leaseMs / 4));
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await registerWorker(this.database.db, this.options.owner);
    this.startBeating();
    const unlistenRuns = await this.database.listen(RUNS_CHANNEL, () => this.poke());
    const unlistenCancels = await this.database.listen(RUN_CANCELS_CHANNEL, (runId) => this.active.get(runId)?.stop("cancelled"));
    this.unlisten = async () => {
      await Promise.all([unlistenRuns(), unlistenCancels()]);
    };
    this.loopDone = this.loop();
  }

  /** Stops claiming and hands runs in progress back to the queue for another worker. */
  async stop(): Promise<void> {
    this.running = false;
    this.poke();
    for (const { stop } of this.active.values()) stop("shutdown");
    await Promise.allSettled([...this.active.values()].map((entry) => entry.done));
    await this.loopDone;
    await this.unlisten?.();
    this.unlisten = null;
    if (this.beat) clearInterval(this.beat);
    this.beat = null;
    await unregisterWorker(this.database.db, this.options.owner).catch((error) => this.options.onError?.(error));
  }

  /** Tells the database this worker is alive, every `beatMs`, whether it holds runs or not; one beat at a time. */
  private startBeating(): void {
    let beating = false;
    this.beat = setInterval(() => {
      if (beating) return;
      beating = true;
      beatWorker(this.database.db, this.options.owner)
        .catch((error) => this.options.onError?.(error))
        .finally(() => {
          beating = false;
        });
    }, this.options.beatMs ?? WORKER_BEAT_MS);
    this.beat.unref?.();
  }

  /** Resolves when no run is in progress on this worker. */
  async idle(): Promise<void> {
    while (this.active.size > 0) await Promise.allSettled([...this.active.values()].map((entry) => entry.done));
  }

  activeRunIds(): string[] {
    return [...this.active.keys()];
  }

  /** Tells the worker a run may be waiting: it claims at once rather than at its next poll. */
  poke(): void {
    this.poked = true;
    this.wake?.();
  }

  private async loop(): Promise<void> {
    const maxParallel = this.options.maxParallel ?? 6;
    while (this.running) {
      // A poke from here on may be about a run this claim's snapshot does not show yet.
      this.poked = false;
      let claimed: Run | null = null;
      const lease = `${this.options.owner}:${randomUUID()}`;
      if (this.active.size < maxParallel) {
        try {
          claimed = await claimNextRun(this.database.db, { owner: lease, leaseMs: this.leaseMs });
        } catch (error) {
          this.options.onError?.(error);
        }
      }
      // A claim that was still out when the worker was told to stop hands its run straight back:
      // `stop()` has already waited for the runs it knew of, and would return with this one running.
      if (claimed && !this.running) {
        await releaseRun(this.database.db, claimed.id, lease).catch((error) => this.options.onError?.(error));
        break;
      }
      if (claimed) {
        this.launch(claimed, lease);
        continue;
      }
      if (this.poked) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.pollMs ?? 1000);
        timer.unref?.();
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  private launch(run: Run, lease: string): void {
    // This worker's own copy of the run lost its lease: it stops, and this one takes over.
    this.active.get(run.id)?.stop("lease_lost");
    const controller = new AbortController();
    let stopReason: StopReason | null = null;
    const stop = (reason: StopReason) => {
      if (stopReason) return;
      stopReason = reason;
      controller.abort(new Error(reason));
    };
    // One heartbeat at a time: a slow one is not piled on by the next, which would only queue behind it.
    let beating = false;
    const heartbeat = setInterval(() => {
      if (beating) return;
      beating = true;
      heartbeatRun(this.database.db, run.id, lease, this.leaseMs)
        .then((beat) => {
          if (!beat.held) stop("lease_lost");
          else if (beat.cancelRequested) stop("cancelled");
        })
        .catch((error) => this.options.onError?.(error))
        .finally(() => {
          beating = false;
        });
    }, this.heartbeatMs);
    heartbeat.unref?.();

    // Everything the run does descends from its attempt's run.started (see claimNextRun).
    const done = withCause(run.causeEventId, () =>
      executeRun({ database: this.database, bus: this.bus, resolveModel: this.options.resolveModel, ...this.options.execute }, run, {
        owner: lease,
        signal: controller.signal,
        stopReason: () => stopReason,
      }),
    )
      .then(async () => {
        if (stopReason === "shutdown") await releaseRun(this.database.db, run.id, lease);
      })
      .catch((error) => this.options.onError?.(error))
      .finally(() => {
        clearInterval(heartbeat);
        if (this.active.get(run.id) === entry) this.active.delete(run.id);
        this.poke();
      });
    const entry = { stop, done };
    this.active.set(run.id, entry);
  }
}
