CREATE TABLE "external_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"room_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"protocol" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "external_tokens" ADD CONSTRAINT "external_tokens_room_id_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."rooms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "external_tokens" ADD CONSTRAINT "external_tokens_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "external_tokens_hash_idx" ON "external_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "external_tokens_room_idx" ON "external_tokens" USING btree ("room_id");