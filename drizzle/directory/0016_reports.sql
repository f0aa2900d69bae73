CREATE TABLE "directory"."moderation_actions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid,
	"action" varchar(20) NOT NULL,
	"reason" text,
	"report_id" uuid,
	"content_type" varchar(20) NOT NULL,
	"content_id" varchar(200) NOT NULL,
	"acted_by" uuid,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "moderation_actions_action_check" CHECK ("directory"."moderation_actions"."action" in ('warned', 'suspended', 'banned', 'content_removed'))
);
--> statement-breakpoint
CREATE TABLE "directory"."reports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"content_type" varchar(20) NOT NULL,
	"content_id" varchar(200) NOT NULL,
	"target_id" uuid,
	"reason" varchar(20) NOT NULL,
	"details" text,
	"status" varchar(20) DEFAULT 'pending' NOT NULL,
	"resolution" varchar(30),
	"review_note" text,
	"reported_by" uuid,
	"reviewed_by" uuid,
	"reviewed_at" timestamp with time zone,
	"moderation_result" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "reports_content_type_check" CHECK ("directory"."reports"."content_type" in ('item', 'comment')),
	CONSTRAINT "reports_reason_check" CHECK ("directory"."reports"."reason" in ('spam', 'harassment', 'inappropriate', 'other')),
	CONSTRAINT "reports_status_check" CHECK ("directory"."reports"."status" in ('pending', 'reviewed', 'resolved', 'dismissed')),
	CONSTRAINT "reports_resolution_check" CHECK ("directory"."reports"."resolution" is null or "directory"."reports"."resolution" in ('content_removed', 'user_warned', 'user_suspended', 'user_banned', 'no_action'))
);
--> statement-breakpoint
ALTER TABLE "directory"."client_profiles" ADD COLUMN "warning_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "directory"."client_profiles" ADD COLUMN "suspended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "directory"."client_profiles" ADD COLUMN "banned_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "directory"."moderation_actions" ADD CONSTRAINT "moderation_actions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "directory"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."moderation_actions" ADD CONSTRAINT "moderation_actions_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "directory"."reports"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."moderation_actions" ADD CONSTRAINT "moderation_actions_acted_by_users_id_fk" FOREIGN KEY ("acted_by") REFERENCES "directory"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."reports" ADD CONSTRAINT "reports_reported_by_users_id_fk" FOREIGN KEY ("reported_by") REFERENCES "directory"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."reports" ADD CONSTRAINT "reports_reviewed_by_users_id_fk" FOREIGN KEY ("reviewed_by") REFERENCES "directory"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "moderation_actions_user_idx" ON "directory"."moderation_actions" USING btree ("user_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "reports_reporter_content_unique" ON "directory"."reports" USING btree ("reported_by","content_type",coalesce("target_id"::text, lower("content_id")));--> statement-breakpoint
CREATE INDEX "reports_created_idx" ON "directory"."reports" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "reports_status_created_idx" ON "directory"."reports" USING btree ("status","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "reports_target_idx" ON "directory"."reports" USING btree ("content_type","target_id");