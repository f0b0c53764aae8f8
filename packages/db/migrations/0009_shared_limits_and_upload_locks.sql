CREATE TABLE "rate_limit_events" (
	"key" text PRIMARY KEY NOT NULL,
	"stamps_ms" bigint[] NOT NULL,
	"last_ms" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "upload_locks" (
	"upload_id" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"release_requested" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE INDEX "rate_limit_events_last_idx" ON "rate_limit_events" USING btree ("last_ms");