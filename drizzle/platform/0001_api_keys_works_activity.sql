CREATE TABLE "platform"."activity_log" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"work_id" uuid,
	"action_type" text NOT NULL,
	"action" varchar(100) NOT NULL,
	"status" text NOT NULL,
	"summary" text NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"metadata" jsonb,
	"ip_address" varchar(64),
	"user_agent" varchar(512),
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "platform"."api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"name" varchar(100) NOT NULL,
	"prefix" varchar(12) NOT NULL,
	"key_hash" varchar(64) NOT NULL,
	"expires_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "platform"."work_members" (
	"work_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "work_members_work_id_user_id_pk" PRIMARY KEY("work_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "platform"."works" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_id" uuid NOT NULL,
	"slug" varchar(63) NOT NULL,
	"name" varchar(100) NOT NULL,
	"description" text,
	"generate_status" text DEFAULT 'IDLE' NOT NULL,
	"items_count" integer DEFAULT 0 NOT NULL,
	"recent_logs" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "works_owner_slug_unique" UNIQUE("owner_id","slug")
);
--> statement-breakpoint
ALTER TABLE "platform"."activity_log" ADD CONSTRAINT "activity_log_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "platform"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."activity_log" ADD CONSTRAINT "activity_log_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "platform"."works"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "platform"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."work_members" ADD CONSTRAINT "work_members_work_id_works_id_fk" FOREIGN KEY ("work_id") REFERENCES "platform"."works"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."work_members" ADD CONSTRAINT "work_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "platform"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform"."works" ADD CONSTRAINT "works_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "platform"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "activity_log_user_created_idx" ON "platform"."activity_log" USING btree ("user_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "activity_log_user_status_idx" ON "platform"."activity_log" USING btree ("user_id","status");--> statement-breakpoint
CREATE INDEX "activity_log_user_type_created_idx" ON "platform"."activity_log" USING btree ("user_id","action_type","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "activity_log_work_idx" ON "platform"."activity_log" USING btree ("work_id");--> statement-breakpoint
CREATE INDEX "api_keys_user_idx" ON "platform"."api_keys" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "work_members_user_idx" ON "platform"."work_members" USING btree ("user_id");