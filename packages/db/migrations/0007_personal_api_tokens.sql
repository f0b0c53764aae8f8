ALTER TABLE "auth_tokens" ADD COLUMN "kind" text DEFAULT 'login' NOT NULL;--> statement-breakpoint
ALTER TABLE "auth_tokens" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "auth_tokens" ADD COLUMN "read_only" boolean DEFAULT false NOT NULL;