"use client";

import Link from "next/link";
import { useHydrated } from "@/components/ui/local-time";
import type { AdminRunDetail, AdminRunStep } from "@/lib/admin/admin-runs";
import { useAdminQuery } from "./admin-api";
import { describePromptSummary, formatDollars, formatDuration, formatTokens } from "./admin-format";
import { RunActions } from "./run-actions";
import { RunStatus, runDuration } from "./runs-view";
import { Clock } from "./time-text";

const TRIGGERS = {
  human: "a person",
  scheduler: "the scheduler",
  request: "another agent's request",
  broadcast: "a question to the team",
  dialogue: "a dialogue",
  command: "a participant's message",
} as const;

/** Who or what started a run, in words: a participant, an admin, the scheduler, another agent. */
function startedBy(run: AdminRunDetail["run"]): string {
  if (run.requestedBy === "admin") return "an admin";
  if (run.trigger === "human" && run.requestedBy.startsWith("human:")) return "a participant";
  return TRIGGERS[run.trigger];
}

function Json({ value }: { value: unknown }) {
  return <pre className="admin-json">{JSON.stringify(value, null, 2)}</pre>;
}

function StepCard({ step }: { step: AdminRunStep }) {
  const results = new Map(step.toolResults.map((result) => [result.id, result]));
  return (
    <li className="card admin-step" data-testid="run-step">
      <div className="admin-step__head">
        <strong>Step {step.step + 1}</strong>
        <span className="muted">
          attempt {step.attempt} · <Clock iso={step.at} /> · {formatDuration(step.durationMs)} · {formatTokens(step.inputTokens)} in /{" "}
          {formatTokens(step.outputTokens)} out · {formatDollars(step.costUsd)}
        </span>
      </div>
      {step.prompt && (
        <p className="admin-step__prompt muted" data-testid="run-step-prompt">
          <span className="admin-label">Prompt</span> {describePromptSummary(step.prompt)}
        </p>
      )}
      {step.text && <p className="admin-step__text">{step.text}</p>}
      {step.toolCalls.map((toolCall) => {
        const result = results.get(toolCall.id);
        return (
          <details key={toolCall.id} className="admin-tool" data-testid="run-tool-call">
            <summary>
              <code>{toolCall.name}</code>
              {result?.error ? (
                <span className="form-error"> failed: {result.error}</span>
              ) : result ? (
                <span className="muted"> answered</span>
              ) : (
                <span className="muted"> no result</span>
              )}
            </summary>
            <div className="admin-tool__io">
              <div>
                <span className="admin-label">Arguments</span>
                <Json value={toolCall.input} />
              </div>
              <div>
                <span className="admin-label">Result</span>
                <Json value={result ? (result.error ?? result.output ?? null) : null} />
              </div>
            </div>
          </details>
        );
      })}
    </li>
  );
}

/**
 * One run: who, where, why and how it went, its prompt, what it is writing now, and each step
 * with what its model was given (in brief), its text, tool calls and their results, tokens, cost
 * and duration, by attempt.
 */
export function RunDetailView({ initial }: { initial: AdminRunDetail }) {
  const active = (status: string) => status === "queued" || status === "running";
  const { data } = useAdminQuery<AdminRunDetail>(`/api/admin/runs/${initial.run.id}`, {
    initialData: initial,
    refreshMs: active(initial.run.status) ? 1500 : 10_000,
  });
  const detail = data ?? initial;
  const { run } = detail;
  const now = useHydrated() ? Date.now() : null;
  return (
    <div className="admin-page" data-testid="admin-run" data-status={run.status}>
      <p className="admin-crumbs">
        <Link href="/admin/runs">Runs</Link> › {run.agentName}
      </p>
      <div className="admin-page__head">
        <h1>
          <span className="admin-dot admin-dot--large" style={{ background: run.agentColor }} /> {run.agentName}’s run
        </h1>
        <RunStatus status={run.status} cancelRequested={run.cancelRequested} />
        <RunActions run={run} />
      </div>
      <dl className="admin-facts">
        <div>
          <dt>Room</dt>
          <dd>
            <Link href={`/admin/rooms/${run.roomId}`}>{run.roomTitle}</Link>
          </dd>
        </div>
        <div>
          <dt>Model</dt>
          <dd>
            <code>{run.model}</code>
          </dd>
        </div>
        <div>
          <dt>Started by</dt>
          <dd title={run.requestedBy}>{startedBy(run)}</dd>
        </div>
        <div>
          <dt>Workflow</dt>
          <dd>
            <Link href={`/admin/workflows?id=${encodeURIComponent(run.correlationId)}`} data-testid="run-workflow">
              <code>{run.correlationId}</code>
            </Link>
          </dd>
        </div>
        <div>
          <dt>Queued</dt>
          <dd>
            <Clock iso={run.createdAt} />
          </dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{runDuration(run, now)}</dd>
        </div>
        <div>
          <dt>Steps · attempts</dt>
          <dd>
            {run.steps} · {run.attempts}
          </dd>
        </div>
        <div>
          <dt>Tokens · cost</dt>
          <dd data-testid="run-usage">
            {formatTokens(run.inputTokens)} in / {formatTokens(run.outputTokens)} out · {formatDollars(run.costUsd)}
          </dd>
        </div>
        {run.leaseOwner && (
          <div>
            <dt>Worker</dt>
            <dd>
              <code>{run.leaseOwner}</code>
            </dd>
          </div>
        )}
        {run.parentRunId && (
          <div>
            <dt>Started from</dt>
            <dd>
              <Link href={`/admin/runs/${run.parentRunId}`}>the run before</Link>
            </dd>
          </div>
        )}
      </dl>
      {run.error && (
        <p className="banner banner--danger" data-testid="run-error">
          {run.error.error_type}: {run.error.error_message}
        </p>
      )}
      <section>
        <h2 className="admin-section-title">Prompt</h2>
        <p className="card admin-prompt">{run.prompt}</p>
      </section>
      {run.status === "running" && run.streamingText && (
        <section>
          <h2 className="admin-section-title">Writing now</h2>
          <p className="card admin-prompt admin-prompt--live" data-testid="run-streaming">
            {run.streamingText}
          </p>
        </section>
      )}
      <section>
        <h2 className="admin-section-title">
          Steps <span className="muted">({detail.steps.length})</span>
        </h2>
        {detail.steps.length === 0 ? (
          <p className="muted">{active(run.status) ? "No step has finished yet." : "The run took no step."}</p>
        ) : null}
        <ol className="admin-steps">
          {detail.steps.map((step) => (
            <StepCard key={step.seq} step={step} />
          ))}
        </ol>
      </section>
      {(detail.attempts.length > 1 || detail.retries.length > 0) && (
        <section>
          <h2 className="admin-section-title">Attempts and retries</h2>
          <ul className="admin-plain-list">
            {detail.attempts.map((attempt) => (
              <li key={attempt.attempt}>
                Attempt {attempt.attempt} started <Clock iso={attempt.at} />
              </li>
            ))}
            {detail.retries.map((retry) => (
              <li key={retry.seq} className="form-error">
                Step {retry.step + 1}: model call retried ({retry.retry} of {retry.of}) after {retry.error.error_message}
              </li>
            ))}
          </ul>
        </section>
      )}
      {detail.modelCalls.length > 0 && (
        <section>
          <h2 className="admin-section-title">Model calls (what the provider bills)</h2>
          <table className="admin-small-table">
            <thead>
              <tr>
                <th>Attempt</th>
                <th>Call</th>
                <th>Step</th>
                <th>Input</th>
                <th>Output</th>
                <th>Cost</th>
                <th>At</th>
              </tr>
            </thead>
            <tbody>
              {detail.modelCalls.map((modelCall) => (
                <tr key={`${modelCall.attempt}-${modelCall.call}`}>
                  <td>{modelCall.attempt}</td>
                  <td>{modelCall.call + 1}</td>
                  <td>{modelCall.step + 1}</td>
                  <td>{formatTokens(modelCall.inputTokens)}</td>
                  <td>{formatTokens(modelCall.outputTokens)}</td>
                  <td>{formatDollars(modelCall.costUsd)}</td>
                  <td>
                    <Clock iso={modelCall.at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </div>
  );
}
