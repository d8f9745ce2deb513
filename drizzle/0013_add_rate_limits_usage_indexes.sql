CREATE TABLE "rate_limits" (
	"bucket" text NOT NULL,
	"subject" text NOT NULL,
	"allowance_at" timestamp with time zone NOT NULL,
	CONSTRAINT "rate_limits_bucket_subject_pk" PRIMARY KEY("bucket","subject")
);
--> statement-breakpoint
CREATE INDEX "run_model_calls_created_idx" ON "run_model_calls" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "broadcast_responses_created_idx" ON "broadcast_responses" USING btree ("created_at");