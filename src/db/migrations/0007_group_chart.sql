CREATE TABLE "consolidation_adjustments" (
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"group_id" uuid NOT NULL,
	"year" integer NOT NULL,
	"period" smallint NOT NULL,
	"description" text NOT NULL,
	"status" text NOT NULL,
	"recurring" boolean DEFAULT false NOT NULL,
	"lines" jsonb NOT NULL,
	"created_by" uuid NOT NULL,
	"approved_by" uuid,
	"posted_by" uuid,
	"posted_at" timestamp (3) with time zone,
	"reversal_of_id" uuid,
	"reversed_by_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "consolidation_adjustments_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "group_account_mappings" (
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"group_id" uuid NOT NULL,
	"group_account_id" uuid NOT NULL,
	"company_id" uuid,
	"account_id" uuid,
	"pattern" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "group_account_mappings_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "group_accounts" (
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"group_id" uuid NOT NULL,
	"account_number" text NOT NULL,
	"name" text NOT NULL,
	"account_type" text NOT NULL,
	"account_category" text NOT NULL,
	"cash_flow_category" text,
	"is_cash_equivalent" boolean DEFAULT false NOT NULL,
	"is_non_monetary" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "group_accounts_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "consolidation_groups" ADD COLUMN "ic_difference_account_number" text;--> statement-breakpoint
ALTER TABLE "consolidation_groups" ADD COLUMN "ic_difference_tolerance" numeric(28, 8);--> statement-breakpoint
ALTER TABLE "consolidation_runs" ADD COLUMN "input_digest" text;--> statement-breakpoint
ALTER TABLE "consolidation_runs" ADD COLUMN "elimination_entries" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "consolidation_runs" ADD COLUMN "adjustment_ids" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "consolidation_adjustments" ADD CONSTRAINT "consolidation_adjustments_organization_id_group_id_consolidation_groups_organization_id_id_fk" FOREIGN KEY ("organization_id","group_id") REFERENCES "public"."consolidation_groups"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_account_mappings" ADD CONSTRAINT "group_account_mappings_organization_id_group_id_consolidation_groups_organization_id_id_fk" FOREIGN KEY ("organization_id","group_id") REFERENCES "public"."consolidation_groups"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_account_mappings" ADD CONSTRAINT "group_account_mappings_organization_id_group_account_id_group_accounts_organization_id_id_fk" FOREIGN KEY ("organization_id","group_account_id") REFERENCES "public"."group_accounts"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_account_mappings" ADD CONSTRAINT "group_account_mappings_organization_id_account_id_accounts_organization_id_id_fk" FOREIGN KEY ("organization_id","account_id") REFERENCES "public"."accounts"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_accounts" ADD CONSTRAINT "group_accounts_organization_id_group_id_consolidation_groups_organization_id_id_fk" FOREIGN KEY ("organization_id","group_id") REFERENCES "public"."consolidation_groups"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "consolidation_adjustments_id_idx" ON "consolidation_adjustments" USING btree ("id");--> statement-breakpoint
CREATE INDEX "consolidation_adjustments_group_idx" ON "consolidation_adjustments" USING btree ("organization_id","group_id","year","period");--> statement-breakpoint
CREATE UNIQUE INDEX "group_account_mappings_account_uq" ON "group_account_mappings" USING btree ("organization_id","group_id","account_id");--> statement-breakpoint
CREATE INDEX "group_account_mappings_group_idx" ON "group_account_mappings" USING btree ("organization_id","group_id","created_at","id");--> statement-breakpoint
CREATE INDEX "group_account_mappings_target_idx" ON "group_account_mappings" USING btree ("organization_id","group_account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "group_accounts_number_uq" ON "group_accounts" USING btree ("organization_id","group_id","account_number");--> statement-breakpoint
CREATE INDEX "group_accounts_id_idx" ON "group_accounts" USING btree ("id");--> statement-breakpoint
ALTER TABLE "group_account_mappings" ADD CONSTRAINT "group_account_mappings_kind_ck" CHECK (("account_id" IS NULL) <> ("pattern" IS NULL));
