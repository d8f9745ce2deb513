CREATE TABLE "agent_notes" (
	"id" text PRIMARY KEY NOT NULL,
	"room_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"text" text NOT NULL,
	"broadcast_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone,
	"delivered_to_run_id" text
);
--> statement-breakpoint
CREATE TABLE "broadcast_responses" (
	"id" text PRIMARY KEY NOT NULL,
	"broadcast_id" text NOT NULL,
	"room_id" text NOT NULL,
	"responder_id" text NOT NULL,
	"responder_name" text NOT NULL,
	"is_human" boolean NOT NULL,
	"content" text NOT NULL,
	"duration_ms" bigint DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cost_usd" double precision DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "broadcasts" (
	"id" text PRIMARY KEY NOT NULL,
	"room_id" text NOT NULL,
	"run_id" text,
	"agent_id" text NOT NULL,
	"agent_name" text NOT NULL,
	"mode" text NOT NULL,
	"question" text NOT NULL,
	"target_agent_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"options" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"status" text NOT NULL,
	"correlation_id" text NOT NULL,
	"deadline_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"opened_at" timestamp with time zone,
	"closed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "human_qa_reads" (
	"agent_id" text PRIMARY KEY NOT NULL,
	"room_id" text NOT NULL,
	"seen_until" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agent_notes" ADD CONSTRAINT "agent_notes_room_id_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."rooms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "broadcast_responses" ADD CONSTRAINT "broadcast_responses_broadcast_id_broadcasts_id_fk" FOREIGN KEY ("broadcast_id") REFERENCES "public"."broadcasts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "broadcast_responses" ADD CONSTRAINT "broadcast_responses_room_id_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."rooms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "broadcasts" ADD CONSTRAINT "broadcasts_room_id_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."rooms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "human_qa_reads" ADD CONSTRAINT "human_qa_reads_room_id_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."rooms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_notes_pending_idx" ON "agent_notes" USING btree ("agent_id","delivered_at");--> statement-breakpoint
CREATE INDEX "broadcast_responses_broadcast_idx" ON "broadcast_responses" USING btree ("broadcast_id");--> statement-breakpoint
CREATE INDEX "broadcasts_room_idx" ON "broadcasts" USING btree ("room_id","created_at");--> statement-breakpoint
CREATE INDEX "broadcasts_agent_status_idx" ON "broadcasts" USING btree ("agent_id","status");--> statement-breakpoint
CREATE UNIQUE INDEX "broadcasts_one_open_human_idx" ON "broadcasts" USING btree ("room_id") WHERE "broadcasts"."mode" = 'human' and "broadcasts"."status" = 'open';