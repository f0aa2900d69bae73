CREATE TABLE "directory"."contact_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" varchar(100) NOT NULL,
	"email" varchar(254) NOT NULL,
	"subject" varchar(200),
	"message" text NOT NULL,
	"user_id" uuid,
	"client_ip" varchar(64),
	"mail_status" varchar(20) NOT NULL,
	"mail_attempts" integer DEFAULT 0 NOT NULL,
	"mail_error" text,
	"mailed_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "contact_messages_mail_status_check" CHECK ("directory"."contact_messages"."mail_status" in ('not_configured', 'pending', 'sent', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "directory"."contact_messages" ADD CONSTRAINT "contact_messages_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "directory"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "contact_messages_created_idx" ON "directory"."contact_messages" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "contact_messages_user_idx" ON "directory"."contact_messages" USING btree ("user_id");