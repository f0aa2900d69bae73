CREATE TABLE "platform"."deployments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"work_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"owner_id" uuid NOT NULL,
	"provider_id" text NOT NULL,
	"provider_name" text NOT NULL,
	"repository" text NOT NULL,
	"project_name" text NOT NULL,
	"team_scope" text,
	"provider_token" text NOT NULL,
	"trigger" text NOT NULL,
	"state" text NOT NULL,
	"provider_deployment_id" text,
	"url" text,
	"polls" integer DEFAULT 0 NOT NULL,
	"not_found_polls" integer DEFAULT 0 NOT NULL,
	"error" text,
	"dispatched_at" timestamp with time zone NOT NULL,
	"next_poll_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "platform"."deployments" ADD CONSTRAINT "deployments_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "platform"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."deployments" ADD CONSTRAINT "deployments_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "platform"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "deployments_one_running" ON "platform"."deployments" USING btree ("work_id") WHERE "platform"."deployments"."state" in ('INITIALIZING', 'QUEUED', 'BUILDING');--> statement-breakpoint
CREATE INDEX "deployments_work_idx" ON "platform"."deployments" USING btree ("work_id","created_at");--> statement-breakpoint
CREATE INDEX "deployments_running_idx" ON "platform"."deployments" USING btree ("next_poll_at") WHERE "platform"."deployments"."state" in ('INITIALIZING', 'QUEUED', 'BUILDING');