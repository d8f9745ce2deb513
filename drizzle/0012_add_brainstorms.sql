-- Brainstorms: a problem taken through nine stages and a gate, and what each agent submitted in each stage.
CREATE TABLE "brainstorm_artifacts" (
	"id" text PRIMARY KEY NOT NULL,
	"brainstorm_id" text NOT NULL,
	"room_id" text NOT NULL,
	"stage" text NOT NULL,
	"pass" integer NOT NULL,
	"agent_id" text NOT NULL,
	"agent_name" text NOT NULL,
	"run_id" text NOT NULL,
	"content" jsonb NOT NULL,
	"node_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "brainstorms" (
	"id" text PRIMARY KEY NOT NULL,
	"room_id" text NOT NULL,
	"correlation_id" text NOT NULL,
	"problem" text NOT NULL,
	"status" text NOT NULL,
	"stages" jsonb NOT NULL,
	"returned_to_divergent" integer DEFAULT 0 NOT NULL,
	"gate_round" integer DEFAULT 0 NOT NULL,
	"gate_opened_at" timestamp with time zone,
	"decisions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"redirect" text,
	"deepen_candidate_id" text,
	"chosen_candidate_id" text,
	"deliverable" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "brainstorm_artifacts" ADD CONSTRAINT "brainstorm_artifacts_brainstorm_id_brainstorms_id_fk" FOREIGN KEY ("brainstorm_id") REFERENCES "public"."brainstorms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "brainstorm_artifacts" ADD CONSTRAINT "brainstorm_artifacts_room_id_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."rooms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "brainstorms" ADD CONSTRAINT "brainstorms_room_id_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."rooms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "brainstorm_artifacts_stage_idx" ON "brainstorm_artifacts" USING btree ("brainstorm_id","stage","created_at");--> statement-breakpoint
CREATE INDEX "brainstorms_room_idx" ON "brainstorms" USING btree ("room_id","created_at");