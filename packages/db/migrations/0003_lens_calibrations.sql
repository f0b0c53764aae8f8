CREATE TABLE "lens_calibrations" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "lens_calibrations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"device_model" text NOT NULL,
	"image_width" integer NOT NULL,
	"image_height" integer NOT NULL,
	"intrinsics" jsonb NOT NULL,
	"distortion" jsonb NOT NULL,
	"rms_error_px" double precision,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "lens_calibrations" ADD CONSTRAINT "lens_calibrations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "lens_calibrations_user_model_idx" ON "lens_calibrations" USING btree ("user_id",lower("device_model"));