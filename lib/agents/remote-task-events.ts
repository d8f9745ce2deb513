import type { Db } from "@/db";
import type { Run } from "@/db/schema";
import { type Actor, writeRoomEvents } from "@/lib/events/write-room-events";
import { A2ALanguageModel } from "@/lib/models/a2a-model";
import type { LanguageModelV4 } from "@ai-sdk/provider";

/**
 * Announces each state of the remote task an A2A teammate's run waits on (`agent.remote_task`),
 * in order, so the teammate's card shows it while the call is under way and the last one after.
 * Models of other kinds have no remote task: nothing is watched. `settled` waits for what was
 * reported to be written, before the run ends; a failed write loses a state, never the run.
 */
export function watchRemoteTasks(db: Db, run: Run, actor: Actor, model: LanguageModelV4): { settled: () => Promise<void> } {
  let written: Promise<void> = Promise.resolve();
  if (model instanceof A2ALanguageModel) {
    model.onTaskState = ({ taskId, state }) => {
      written = written.then(() =>
        writeRoomEvents(db, run.roomId, async (_tx, emit) => {
          emit({
            type: "agent.remote_task",
            actor,
            correlationId: run.correlationId,
            payload: { agentId: run.agentId, runId: run.id, taskId, state },
          });
        }).then(
          () => {},
          () => {},
        ),
      );
    };
  }
  return { settled: () => written };
}
