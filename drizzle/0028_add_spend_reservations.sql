CREATE TABLE "spend_reservations" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"lease_owner" text NOT NULL,
	"room_id" text NOT NULL,
	"correlation_id" text NOT NULL,
	"tokens" bigint NOT NULL,
	"cost_usd" double precision NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "spend_reservations" ADD CONSTRAINT "spend_reservations_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "spend_reservations_room_idx" ON "spend_reservations" USING btree ("room_id");--> statement-breakpoint
CREATE INDEX "spend_reservations_run_idx" ON "spend_reservations" USING btree ("run_id");