CREATE TABLE "directory"."item_links" (
	"item_id" uuid PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"status" varchar(20) NOT NULL,
	"http_status" integer,
	"final_url" text,
	"reason" varchar(300),
	"failures" integer DEFAULT 0 NOT NULL,
	"checked_at" timestamp with time zone NOT NULL,
	"broken_run_id" uuid,
	CONSTRAINT "item_links_status_check" CHECK ("directory"."item_links"."status" in ('ok', 'redirected', 'broken', 'unchecked'))
);
--> statement-breakpoint
CREATE TABLE "directory"."link_check_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"status" varchar(20) NOT NULL,
	"requested_by" uuid,
	"total" integer DEFAULT 0 NOT NULL,
	"processed" integer DEFAULT 0 NOT NULL,
	"ok" integer DEFAULT 0 NOT NULL,
	"redirected" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"newly_broken" integer DEFAULT 0 NOT NULL,
	"cursor" uuid,
	"error" text,
	"created_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "link_check_runs_status_check" CHECK ("directory"."link_check_runs"."status" in ('queued', 'running', 'completed', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "directory"."item_links" ADD CONSTRAINT "item_links_item_id_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "directory"."items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."link_check_runs" ADD CONSTRAINT "link_check_runs_requested_by_users_id_fk" FOREIGN KEY ("requested_by") REFERENCES "directory"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "item_links_status_idx" ON "directory"."item_links" USING btree ("status");--> statement-breakpoint
CREATE INDEX "item_links_broken_run_idx" ON "directory"."item_links" USING btree ("broken_run_id") WHERE "directory"."item_links"."broken_run_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "link_check_runs_one_active" ON "directory"."link_check_runs" USING btree ((true)) WHERE "directory"."link_check_runs"."status" in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "link_check_runs_created_idx" ON "directory"."link_check_runs" USING btree ("created_at" DESC NULLS LAST);