CREATE TABLE "run_steps" (
	"run_id" text NOT NULL,
	"step" integer NOT NULL,
	"attempt" integer NOT NULL,
	"notes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"messages" jsonb NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cost_usd" double precision DEFAULT 0 NOT NULL,
	"duration_ms" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "run_steps_run_id_step_pk" PRIMARY KEY("run_id","step")
);
--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "opening" jsonb;--> statement-breakpoint
ALTER TABLE "run_steps" ADD CONSTRAINT "run_steps_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_notes_run_idx" ON "agent_notes" USING btree ("delivered_to_run_id");