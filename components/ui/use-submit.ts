"use client";

import { type FormEvent, useCallback, useRef, useState } from "react";

/** Where a form that calls the server stands: sending, and the reason its last try failed. */
export interface SubmitState {
  busy: boolean;
  error: string | null;
}

export interface SubmitOptions {
  /** Stays busy after a success, for a submit that leaves the page (the form is gone by then). */
  keepBusy?: boolean;
}

/** The state once a try starts: busy, with no error shown; null while one is already running. */
export function startTry(state: SubmitState): SubmitState | null {
  return state.busy ? null : { busy: true, error: null };
}

/** The state once a try has ended, with `failure` when it failed. */
export function endTry(failure: unknown | undefined, options: SubmitOptions = {}): SubmitState {
  if (failure === undefined) return { busy: Boolean(options.keepBusy), error: null };
  return { busy: false, error: failure instanceof Error ? failure.message : String(failure) };
}

/** The state once its error is taken away (the same state when there was none, so nothing redraws). */
export function withoutError(state: SubmitState): SubmitState {
  return state.error === null ? state : { ...state, error: null };
}

/**
 * For a form whose submit calls the server: `onSubmit={submit(async () => …)}` prevents the
 * page from reloading, ignores a second submit while the first runs, clears the last error
 * when trying again and shows the failure's message. Use `busy` to disable the submit button,
 * and `clearError` to take the message away before the next try (once the input is edited).
 */
export function useSubmit(initialError: string | null = null) {
  const [state, setState] = useState<SubmitState>({ busy: false, error: initialError });
  const running = useRef(false);
  const submit = useCallback(
    (action: () => Promise<void>, options: SubmitOptions = {}) =>
      async (event: FormEvent) => {
        event.preventDefault();
        const started = startTry({ busy: running.current, error: null });
        if (!started) return;
        running.current = true;
        setState(started);
        let failure: unknown;
        try {
          await action();
        } catch (error) {
          failure = error;
        }
        running.current = Boolean(options.keepBusy) && failure === undefined;
        setState(endTry(failure, options));
      },
    [],
  );
  const clearError = useCallback(() => setState(withoutError), []);
  return { ...state, submit, clearError };
}
