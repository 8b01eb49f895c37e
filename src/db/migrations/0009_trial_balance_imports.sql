CREATE TABLE "trial_balance_imports" (
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"mode" text NOT NULL,
	"as_of_date" date NOT NULL,
	"source_format" text NOT NULL,
	"file_digest" text NOT NULL,
	"row_count" integer NOT NULL,
	"created_account_count" integer DEFAULT 0 NOT NULL,
	"total_debits" numeric(28, 8) NOT NULL,
	"total_credits" numeric(28, 8) NOT NULL,
	"journal_entry_id" uuid,
	"journal_entry_ids" uuid[] DEFAULT '{}' NOT NULL,
	"created_by" uuid NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trial_balance_imports_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "trial_balance_imports" ADD CONSTRAINT "trial_balance_imports_organization_id_company_id_companies_organization_id_id_fk" FOREIGN KEY ("organization_id","company_id") REFERENCES "public"."companies"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trial_balance_imports" ADD CONSTRAINT "trial_balance_imports_organization_id_journal_entry_id_journal_entries_organization_id_id_fk" FOREIGN KEY ("organization_id","journal_entry_id") REFERENCES "public"."journal_entries"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "trial_balance_imports_company_idx" ON "trial_balance_imports" USING btree ("organization_id","company_id","created_at");--> statement-breakpoint
CREATE INDEX "trial_balance_imports_id_idx" ON "trial_balance_imports" USING btree ("id");