CREATE TABLE "leases" (
	"name" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" text PRIMARY KEY NOT NULL,
	"room_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"trigger" text NOT NULL,
	"requested_by" text NOT NULL,
	"prompt" text NOT NULL,
	"parent_run_id" text,
	"chain_depth" integer DEFAULT 0 NOT NULL,
	"correlation_id" text NOT NULL,
	"selected_node_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"request_entry_id" text,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"cancel_requested" boolean DEFAULT false NOT NULL,
	"steps" integer DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cost_usd" double precision DEFAULT 0 NOT NULL,
	"transcript" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"streaming_text" text DEFAULT '' NOT NULL,
	"error" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "board_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"room_id" text NOT NULL,
	"run_id" text,
	"agent_id" text,
	"agent_name" text NOT NULL,
	"kind" text NOT NULL,
	"content" jsonb NOT NULL,
	"target_persona" text,
	"request_status" text,
	"answers_entry_id" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "rooms" ADD COLUMN "last_scheduled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_room_id_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."rooms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "board_entries" ADD CONSTRAINT "board_entries_room_id_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."rooms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "runs_queue_idx" ON "runs" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "runs_room_status_idx" ON "runs" USING btree ("room_id","status");--> statement-breakpoint
CREATE INDEX "runs_agent_idx" ON "runs" USING btree ("agent_id","created_at");--> statement-breakpoint
CREATE INDEX "runs_correlation_idx" ON "runs" USING btree ("correlation_id");--> statement-breakpoint
CREATE INDEX "runs_active_idx" ON "runs" USING btree ("room_id") WHERE "runs"."status" in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "board_room_idx" ON "board_entries" USING btree ("room_id","created_at");--> statement-breakpoint
CREATE INDEX "board_room_kind_idx" ON "board_entries" USING btree ("room_id","kind");--> statement-breakpoint
CREATE INDEX "board_requests_idx" ON "board_entries" USING btree ("room_id","target_persona","request_status");