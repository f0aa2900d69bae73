CREATE TABLE "directory"."crm_companies" (
	"name_key" varchar(200) PRIMARY KEY NOT NULL,
	"name" varchar(200) NOT NULL,
	"company_id" varchar(64),
	"claimed_until" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "directory"."crm_settings" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"base_url" varchar(2048),
	"api_key" text,
	"api_key_hint" varchar(8),
	"sync_clients" boolean DEFAULT true NOT NULL,
	"sync_companies" boolean DEFAULT true NOT NULL,
	"updated_by" uuid,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "crm_settings_single_row" CHECK ("directory"."crm_settings"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE "directory"."crm_sync_records" (
	"client_id" uuid PRIMARY KEY NOT NULL,
	"status" varchar(16) NOT NULL,
	"snapshot" jsonb NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"synced_version" integer DEFAULT 0 NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"last_status" integer,
	"person_id" varchar(64),
	"company_id" varchar(64),
	"lease_until" timestamp with time zone,
	"next_attempt_at" timestamp with time zone,
	"synced_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "crm_sync_records_status_check" CHECK ("directory"."crm_sync_records"."status" in ('pending', 'synced', 'failed', 'skipped'))
);
--> statement-breakpoint
CREATE TABLE "directory"."instance_secrets" (
	"name" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "directory"."crm_settings" ADD CONSTRAINT "crm_settings_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "directory"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."crm_sync_records" ADD CONSTRAINT "crm_sync_records_client_id_client_profiles_id_fk" FOREIGN KEY ("client_id") REFERENCES "directory"."client_profiles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "crm_sync_records_status_idx" ON "directory"."crm_sync_records" USING btree ("status","updated_at" DESC NULLS LAST,"client_id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "crm_sync_records_updated_idx" ON "directory"."crm_sync_records" USING btree ("updated_at" DESC NULLS LAST,"client_id" DESC NULLS LAST);