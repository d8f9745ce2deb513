import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Db } from "@/db";

/**
 * Makes the next `times` statements that record model calls of `runId` fail, as a violated
 * constraint would, with "model call refused": a trigger on `run_model_calls`, counted by a
 * sequence (which a rolled-back transaction does not roll back), so that a later statement
 * recording the same calls goes through. Returns a function that removes the trigger.
 */
export async function refuseModelCalls(db: Db, runId: string, times = 1): Promise<() => Promise<void>> {
  const name = `refuse_model_calls_${randomBytes(4).toString("hex")}`;
  const literal = (text: string) => sql.raw(`'${text.replaceAll("'", "''")}'`);
  await db.execute(sql.raw(`create sequence ${name}`));
  await db.execute(
    sql`create function ${sql.raw(name)}() returns trigger language plpgsql as ${literal(`
    begin
      -- Nested, so that only the run's own calls are counted.
      if new.run_id = ${`'${runId.replaceAll("'", "''")}'`} then
        if nextval('${name}') <= ${times} then
          raise exception 'model call refused';
        end if;
      end if;
      return new;
    end`)}`,
  );
  await db.execute(sql.raw(`create trigger ${name} before insert on run_model_calls for each row execute function ${name}()`));
  return async () => {
    await db.execute(sql.raw(`drop trigger ${name} on run_model_calls`));
    await db.execute(sql.raw(`drop function ${name}()`));
    await db.execute(sql.raw(`drop sequence ${name}`));
  };
}
