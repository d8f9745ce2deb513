ALTER TABLE "events" ADD COLUMN "causation_id" text;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "trace_parent" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "cause_event_id" text;