CREATE TABLE "platform"."notifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"type" text NOT NULL,
	"category" text NOT NULL,
	"title" text NOT NULL,
	"message" text NOT NULL,
	"action_url" text,
	"action_label" text,
	"is_persistent" boolean DEFAULT false NOT NULL,
	"deduplication_key" text,
	"expires_at" timestamp with time zone,
	"is_read" boolean DEFAULT false NOT NULL,
	"is_dismissed" boolean DEFAULT false NOT NULL,
	"read_at" timestamp with time zone,
	"dismissed_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "platform"."notifications" ADD CONSTRAINT "notifications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "platform"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notifications_user_created_idx" ON "platform"."notifications" USING btree ("user_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "notifications_user_dedup_unique" ON "platform"."notifications" USING btree ("user_id","deduplication_key") WHERE "platform"."notifications"."deduplication_key" is not null and not "platform"."notifications"."is_dismissed";--> statement-breakpoint
CREATE INDEX "notifications_expires_idx" ON "platform"."notifications" USING btree ("expires_at") WHERE "platform"."notifications"."expires_at" is not null;--> statement-breakpoint
CREATE INDEX "notifications_dismissed_idx" ON "platform"."notifications" USING btree ("dismissed_at") WHERE "platform"."notifications"."is_dismissed";--> statement-breakpoint
CREATE INDEX "notifications_created_idx" ON "platform"."notifications" USING btree ("created_at");