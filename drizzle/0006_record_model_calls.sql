CREATE TABLE "run_model_calls" (
	"run_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"call" integer NOT NULL,
	"step" integer NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cost_usd" double precision DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "run_model_calls_run_id_attempt_call_pk" PRIMARY KEY("run_id","attempt","call")
);
--> statement-breakpoint
ALTER TABLE "run_model_calls" ADD CONSTRAINT "run_model_calls_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;