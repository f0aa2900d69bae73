CREATE TABLE "directory"."import_rows" (
	"import_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"line" integer,
	"record" jsonb NOT NULL,
	CONSTRAINT "import_rows_pkey" PRIMARY KEY("import_id","position")
);
--> statement-breakpoint
CREATE TABLE "directory"."imports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"format" varchar(20) NOT NULL,
	"mode" varchar(20) NOT NULL,
	"dry_run" boolean NOT NULL,
	"status" varchar(20) NOT NULL,
	"source_url" text,
	"content" text,
	"declared" jsonb,
	"total" integer DEFAULT 0 NOT NULL,
	"done" integer DEFAULT 0 NOT NULL,
	"created" integer DEFAULT 0 NOT NULL,
	"updated" integer DEFAULT 0 NOT NULL,
	"unchanged" integer DEFAULT 0 NOT NULL,
	"skipped" integer DEFAULT 0 NOT NULL,
	"errors" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"error_count" integer DEFAULT 0 NOT NULL,
	"failure" text,
	"requested_by" uuid,
	"created_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "imports_status_check" CHECK ("directory"."imports"."status" in ('pending', 'running', 'completed', 'failed')),
	CONSTRAINT "imports_format_check" CHECK ("directory"."imports"."format" in ('markdown', 'csv', 'json')),
	CONSTRAINT "imports_mode_check" CHECK ("directory"."imports"."mode" in ('upsert', 'create-only'))
);
--> statement-breakpoint
ALTER TABLE "directory"."import_rows" ADD CONSTRAINT "import_rows_import_id_imports_id_fk" FOREIGN KEY ("import_id") REFERENCES "directory"."imports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."imports" ADD CONSTRAINT "imports_requested_by_users_id_fk" FOREIGN KEY ("requested_by") REFERENCES "directory"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "imports_one_running" ON "directory"."imports" USING btree ((true)) WHERE "directory"."imports"."status" = 'running';--> statement-breakpoint
CREATE INDEX "imports_created_idx" ON "directory"."imports" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "imports_pending_idx" ON "directory"."imports" USING btree ("created_at") WHERE "directory"."imports"."status" = 'pending';