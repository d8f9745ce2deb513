DROP INDEX "run_model_calls_created_idx";--> statement-breakpoint
DROP INDEX "broadcast_responses_created_idx";