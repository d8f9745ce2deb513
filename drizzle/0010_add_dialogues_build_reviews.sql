-- Build reviews (brief, code versions, verdicts) and dialogues between two agents; a run can say what part it plays.
CREATE TABLE "build_reviews" (
	"id" text PRIMARY KEY NOT NULL,
	"room_id" text NOT NULL,
	"correlation_id" text NOT NULL,
	"task" text NOT NULL,
	"status" text NOT NULL,
	"round" integer DEFAULT 1 NOT NULL,
	"max_rounds" integer NOT NULL,
	"brief" text,
	"clarified" boolean DEFAULT false NOT NULL,
	"code_node_id" text,
	"code_version" integer DEFAULT 0 NOT NULL,
	"language" text,
	"last_verdict" jsonb,
	"outcome" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "dialogues" (
	"id" text PRIMARY KEY NOT NULL,
	"room_id" text NOT NULL,
	"correlation_id" text NOT NULL,
	"build_review_id" text,
	"asker_agent_id" text NOT NULL,
	"addressee_agent_id" text NOT NULL,
	"topic" text NOT NULL,
	"reason" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"rounds" integer DEFAULT 0 NOT NULL,
	"max_rounds" integer NOT NULL,
	"asker_satisfied" boolean,
	"remaining" text,
	"duration_ms" integer DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cost_usd" double precision DEFAULT 0 NOT NULL,
	"cost_known" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"closed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "purpose" jsonb;--> statement-breakpoint
ALTER TABLE "build_reviews" ADD CONSTRAINT "build_reviews_room_id_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."rooms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dialogues" ADD CONSTRAINT "dialogues_room_id_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."rooms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "build_reviews_room_idx" ON "build_reviews" USING btree ("room_id","created_at");--> statement-breakpoint
CREATE INDEX "dialogues_room_status_idx" ON "dialogues" USING btree ("room_id","status");