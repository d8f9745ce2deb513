-- Team memory: findings that never expire, knowledge vaults shared by an agent's identity
-- across rooms, participants' commands and help answers as notes delivered in order.
CREATE TABLE "vault_expertise" (
	"identity" text NOT NULL,
	"area" text NOT NULL,
	"level" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "vault_expertise_identity_area_pk" PRIMARY KEY("identity","area")
);
--> statement-breakpoint
CREATE TABLE "vault_insights" (
	"id" text PRIMARY KEY NOT NULL,
	"identity" text NOT NULL,
	"text" text NOT NULL,
	"room_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "vault_tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"identity" text NOT NULL,
	"room_id" text NOT NULL,
	"run_id" text NOT NULL,
	"asked" text NOT NULL,
	"outcome" text NOT NULL,
	"steps" integer NOT NULL,
	"cost_usd" double precision NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "board_entries" ALTER COLUMN "expires_at" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "identity" text;--> statement-breakpoint
-- An agent's identity outlives its room: the template it came from and its persona.
UPDATE "agents" SET "identity" = "rooms"."template" || '/' || "agents"."persona" FROM "rooms" WHERE "rooms"."id" = "agents"."room_id";--> statement-breakpoint
ALTER TABLE "agents" ALTER COLUMN "identity" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "seats" ADD COLUMN "focus_agent_id" text;--> statement-breakpoint
ALTER TABLE "agent_notes" ADD COLUMN "kind" text DEFAULT 'note' NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_notes" ADD COLUMN "ordinal" bigserial NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_notes" ADD COLUMN "sender_id" text;--> statement-breakpoint
ALTER TABLE "agent_notes" ADD COLUMN "sender_name" text;--> statement-breakpoint
ALTER TABLE "agent_notes" ADD COLUMN "delivered_at_step" integer;--> statement-breakpoint
ALTER TABLE "agent_notes" ADD COLUMN "cancelled_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "vault_insights_identity_idx" ON "vault_insights" USING btree ("identity","created_at");--> statement-breakpoint
CREATE INDEX "vault_tasks_identity_idx" ON "vault_tasks" USING btree ("identity","created_at");--> statement-breakpoint
CREATE INDEX "agents_identity_idx" ON "agents" USING btree ("identity");--> statement-breakpoint
CREATE INDEX "agent_notes_sender_idx" ON "agent_notes" USING btree ("sender_id","created_at");