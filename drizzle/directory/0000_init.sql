CREATE SCHEMA IF NOT EXISTS "directory";
--> statement-breakpoint
CREATE TABLE "directory"."sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"token_hash" varchar(64) NOT NULL,
	"ip_address" varchar(64),
	"user_agent" varchar(512),
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "sessions_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "directory"."client_profiles" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"email" varchar(254) NOT NULL,
	"display_name" varchar(100) NOT NULL,
	"username" varchar(50) NOT NULL,
	"bio" text,
	"job_title" varchar(100),
	"company" varchar(200),
	"industry" varchar(100),
	"phone" varchar(50),
	"website" varchar(500),
	"location" varchar(200),
	"avatar" varchar(500),
	"account_type" text DEFAULT 'individual' NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"plan" text DEFAULT 'free' NOT NULL,
	"provider" varchar(50) DEFAULT 'credentials' NOT NULL,
	"email_verified" boolean DEFAULT false NOT NULL,
	"two_factor_enabled" boolean DEFAULT false NOT NULL,
	"total_submissions" integer DEFAULT 0 NOT NULL,
	"joined_at" timestamp with time zone NOT NULL,
	"last_active_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "client_profiles_user_id_unique" UNIQUE("user_id"),
	CONSTRAINT "client_profiles_username_unique" UNIQUE("username")
);
--> statement-breakpoint
CREATE TABLE "directory"."roles" (
	"id" varchar(64) PRIMARY KEY NOT NULL,
	"name" varchar(100) NOT NULL,
	"description" varchar(500) DEFAULT '' NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"is_admin" boolean DEFAULT false NOT NULL,
	"permissions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "roles_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "directory"."users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"username" varchar(50) NOT NULL,
	"email" varchar(254) NOT NULL,
	"name" varchar(100),
	"password_hash" text,
	"title" varchar(100),
	"avatar" varchar(500),
	"provider" varchar(50) DEFAULT 'credentials' NOT NULL,
	"role_id" varchar(64),
	"status" text DEFAULT 'active' NOT NULL,
	"login_count" integer DEFAULT 0 NOT NULL,
	"last_login_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "users_username_unique" UNIQUE("username"),
	CONSTRAINT "users_email_unique" UNIQUE("email")
);
--> statement-breakpoint
ALTER TABLE "directory"."sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "directory"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."client_profiles" ADD CONSTRAINT "client_profiles_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "directory"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "directory"."users" ADD CONSTRAINT "users_role_id_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "directory"."roles"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "directory"."sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "sessions_expires_idx" ON "directory"."sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "client_profiles_created_idx" ON "directory"."client_profiles" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "users_role_idx" ON "directory"."users" USING btree ("role_id");--> statement-breakpoint
INSERT INTO "directory"."roles" ("id", "name", "description", "status", "is_admin", "permissions") VALUES
	('admin', 'Administrator', 'Full access to every admin area', 'active', true, '[]'::jsonb),
	('user', 'User', 'A signed-in visitor of the directory', 'active', false, '[]'::jsonb)
ON CONFLICT ("id") DO NOTHING;
