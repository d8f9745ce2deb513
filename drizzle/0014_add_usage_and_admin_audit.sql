CREATE TABLE "admin_actions" (
	"id" text PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"room_id" text,
	"room_title" text,
	"summary" text NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_hourly" (
	"hour" timestamp with time zone NOT NULL,
	"agent_id" text NOT NULL,
	"model" text NOT NULL,
	"room_id" text NOT NULL,
	"identity" text NOT NULL,
	"agent_name" text NOT NULL,
	"calls" integer DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cost_usd" double precision DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_hourly_hour_agent_id_model_pk" PRIMARY KEY("hour","agent_id","model")
);
--> statement-breakpoint
CREATE INDEX "admin_actions_at_idx" ON "admin_actions" USING btree ("at","id");--> statement-breakpoint
CREATE INDEX "admin_actions_room_idx" ON "admin_actions" USING btree ("room_id","at");--> statement-breakpoint
-- What was spent before the table existed: every model call of the runs still stored, and every shadow's answer, by agent-hour.
INSERT INTO "usage_hourly" ("hour", "agent_id", "model", "room_id", "identity", "agent_name", "calls", "input_tokens", "output_tokens", "cost_usd")
SELECT date_bin('1 hour', spent.created_at, timestamptz '2000-01-01T00:00:00Z'), a.id, a.model, a.room_id, a.identity, a.name,
	count(*), sum(spent.input_tokens), sum(spent.output_tokens), sum(spent.cost_usd)
FROM (
	SELECT r.agent_id, c.created_at, c.input_tokens, c.output_tokens, c.cost_usd
	FROM "run_model_calls" c JOIN "runs" r ON r.id = c.run_id
	UNION ALL
	SELECT b.responder_id, b.created_at, b.input_tokens, b.output_tokens, b.cost_usd
	FROM "broadcast_responses" b WHERE NOT b.is_human
) spent JOIN "agents" a ON a.id = spent.agent_id
GROUP BY 1, 2, 3, 4, 5, 6;
