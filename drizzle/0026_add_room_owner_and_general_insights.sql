ALTER TABLE "rooms" ADD COLUMN "owner_seat_id" text;--> statement-breakpoint
ALTER TABLE "vault_insights" ADD COLUMN "general" boolean DEFAULT false NOT NULL;