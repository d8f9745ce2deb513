ALTER TABLE "human_qa_reads" DISABLE ROW LEVEL SECURITY;--> statement-breakpoint
DROP TABLE "human_qa_reads" CASCADE;--> statement-breakpoint
ALTER TABLE "broadcasts" ADD COLUMN "question_key" text;--> statement-breakpoint
ALTER TABLE "broadcasts" ADD COLUMN "reused_answer" jsonb;--> statement-breakpoint
ALTER TABLE "broadcasts" ADD COLUMN "asked_again_of" text;--> statement-breakpoint
CREATE INDEX "broadcasts_answered_key_idx" ON "broadcasts" USING btree ("room_id","question_key") WHERE "broadcasts"."mode" = 'human' and "broadcasts"."status" = 'complete';