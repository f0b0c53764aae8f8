CREATE TABLE "worker_tokens" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "worker_tokens_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "worker_tokens_hash_idx" ON "worker_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "worker_tokens_live_name_idx" ON "worker_tokens" USING btree ("name") WHERE "worker_tokens"."revoked_at" is null;