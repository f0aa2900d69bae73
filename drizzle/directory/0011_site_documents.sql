CREATE TABLE "directory"."site_documents" (
	"key" varchar(40) PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"updated_by" uuid,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "directory"."site_documents" ADD CONSTRAINT "site_documents_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "directory"."users"("id") ON DELETE set null ON UPDATE no action;