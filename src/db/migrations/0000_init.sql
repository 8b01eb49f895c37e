CREATE TABLE "audit_log" (
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"action" text NOT NULL,
	"entity_type" text NOT NULL,
	"entity_id" text NOT NULL,
	"changes" jsonb,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "audit_log_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"user_id" uuid NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"state" text NOT NULL,
	"response_status" integer,
	"response_body" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_user_id_key_pk" PRIMARY KEY("user_id","key")
);
--> statement-breakpoint
CREATE TABLE "memberships" (
	"organization_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memberships_organization_id_user_id_pk" PRIMARY KEY("organization_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"name_key" text NOT NULL,
	"reporting_currency" text NOT NULL,
	"settings" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"revoked_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"display_name" text NOT NULL,
	"password_hash" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_email_unique" UNIQUE("email")
);
--> statement-breakpoint
CREATE TABLE "consolidation_groups" (
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"name_key" text NOT NULL,
	"reporting_currency" text NOT NULL,
	"consolidation_method" text NOT NULL,
	"parent_company_id" uuid NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "consolidation_groups_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "consolidation_members" (
	"organization_id" uuid NOT NULL,
	"group_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"ownership_percentage" numeric(5, 2) NOT NULL,
	"consolidation_method" text NOT NULL,
	"acquisition_date" date,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "consolidation_members_organization_id_group_id_company_id_pk" PRIMARY KEY("organization_id","group_id","company_id")
);
--> statement-breakpoint
CREATE TABLE "consolidation_runs" (
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"group_id" uuid NOT NULL,
	"year" integer NOT NULL,
	"period" smallint NOT NULL,
	"as_of_date" date NOT NULL,
	"year_start_date" date NOT NULL,
	"reporting_currency" text NOT NULL,
	"status" text NOT NULL,
	"steps" jsonb NOT NULL,
	"validation_result" jsonb,
	"options" jsonb NOT NULL,
	"members" jsonb NOT NULL,
	"eliminations" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"exchange_rates_used" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"totals" jsonb,
	"initiated_by" uuid NOT NULL,
	"requested_by" uuid NOT NULL,
	"initiated_at" timestamp (3) with time zone NOT NULL,
	"started_at" timestamp (3) with time zone,
	"completed_at" timestamp (3) with time zone,
	"total_duration_ms" integer,
	"error_message" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "consolidation_runs_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "consolidation_trial_balances" (
	"organization_id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	"view" text NOT NULL,
	"data" jsonb NOT NULL,
	CONSTRAINT "consolidation_trial_balances_organization_id_run_id_view_pk" PRIMARY KEY("organization_id","run_id","view")
);
--> statement-breakpoint
CREATE TABLE "elimination_rules" (
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"group_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"elimination_type" text NOT NULL,
	"trigger_conditions" jsonb NOT NULL,
	"source_accounts" jsonb NOT NULL,
	"target_accounts" jsonb NOT NULL,
	"debit_account_id" uuid NOT NULL,
	"credit_account_id" uuid NOT NULL,
	"is_automatic" boolean NOT NULL,
	"priority" integer NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "elimination_rules_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "exchange_rates" (
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"from_currency" text NOT NULL,
	"to_currency" text NOT NULL,
	"rate" numeric(28, 12) NOT NULL,
	"effective_date" date NOT NULL,
	"rate_type" text NOT NULL,
	"source" text NOT NULL,
	"created_by" uuid NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exchange_rates_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "intercompany_transactions" (
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"from_company_id" uuid NOT NULL,
	"to_company_id" uuid NOT NULL,
	"transaction_type" text NOT NULL,
	"transaction_date" date NOT NULL,
	"amount" numeric(28, 8) NOT NULL,
	"currency" text NOT NULL,
	"description" text,
	"from_journal_entry_id" uuid,
	"to_journal_entry_id" uuid,
	"matching_status" text DEFAULT 'Unmatched' NOT NULL,
	"variance_amount" numeric(28, 8),
	"variance_currency" text,
	"variance_explanation" text,
	"is_eliminated" boolean DEFAULT false NOT NULL,
	"eliminated_by_run_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "intercompany_transactions_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "run_rate_usages" (
	"organization_id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	"exchange_rate_id" uuid NOT NULL,
	CONSTRAINT "run_rate_usages_organization_id_run_id_exchange_rate_id_pk" PRIMARY KEY("organization_id","run_id","exchange_rate_id")
);
--> statement-breakpoint
CREATE TABLE "run_rule_applications" (
	"organization_id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	"rule_id" uuid NOT NULL,
	CONSTRAINT "run_rule_applications_organization_id_run_id_rule_id_pk" PRIMARY KEY("organization_id","run_id","rule_id")
);
--> statement-breakpoint
CREATE TABLE "account_balances" (
	"organization_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"balance_date" date NOT NULL,
	"fiscal_year" integer NOT NULL,
	"fiscal_period" smallint NOT NULL,
	"is_closing" boolean NOT NULL,
	"debit_total" numeric(28, 8) NOT NULL,
	"credit_total" numeric(28, 8) NOT NULL,
	CONSTRAINT "account_balances_organization_id_company_id_account_id_balance_date_fiscal_year_fiscal_period_is_closing_pk" PRIMARY KEY("organization_id","company_id","account_id","balance_date","fiscal_year","fiscal_period","is_closing")
);
--> statement-breakpoint
CREATE TABLE "accounts" (
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"account_number" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"account_type" text NOT NULL,
	"account_category" text NOT NULL,
	"parent_account_id" uuid,
	"hierarchy_level" smallint DEFAULT 1 NOT NULL,
	"is_postable" boolean DEFAULT true NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"is_intercompany" boolean DEFAULT false NOT NULL,
	"intercompany_partner_id" uuid,
	"cash_flow_category" text,
	"is_cash_equivalent" boolean DEFAULT false NOT NULL,
	"is_non_monetary" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"deactivated_at" timestamp (3) with time zone,
	CONSTRAINT "accounts_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "companies" (
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"name_key" text NOT NULL,
	"legal_name" text NOT NULL,
	"jurisdiction" text NOT NULL,
	"tax_id" text,
	"incorporation_date" date,
	"registration_number" text,
	"registered_address" jsonb,
	"industry_code" text,
	"company_type" text,
	"incorporation_jurisdiction" text,
	"functional_currency" text NOT NULL,
	"reporting_currency" text NOT NULL,
	"fiscal_year_end_month" smallint NOT NULL,
	"fiscal_year_end_day" smallint NOT NULL,
	"retained_earnings_account_id" uuid,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "companies_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "entry_counters" (
	"organization_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"last_number" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "entry_counters_organization_id_company_id_pk" PRIMARY KEY("organization_id","company_id")
);
--> statement-breakpoint
CREATE TABLE "fiscal_periods" (
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"fiscal_year_id" uuid NOT NULL,
	"fiscal_year" integer NOT NULL,
	"period_number" smallint NOT NULL,
	"name" text NOT NULL,
	"period_type" text NOT NULL,
	"start_date" date NOT NULL,
	"end_date" date NOT NULL,
	"status" text DEFAULT 'Open' NOT NULL,
	"closed_by" uuid,
	"closed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "fiscal_periods_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "fiscal_years" (
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"year" integer NOT NULL,
	"name" text NOT NULL,
	"start_date" date NOT NULL,
	"end_date" date NOT NULL,
	"status" text DEFAULT 'Open' NOT NULL,
	"closed_by" uuid,
	"closed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "fiscal_years_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "journal_entries" (
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"entry_number" integer NOT NULL,
	"reference_number" text,
	"description" text NOT NULL,
	"transaction_date" date NOT NULL,
	"document_date" date,
	"posting_date" date,
	"fiscal_year" integer NOT NULL,
	"fiscal_period" smallint NOT NULL,
	"entry_type" text DEFAULT 'Standard' NOT NULL,
	"source_module" text DEFAULT 'GeneralLedger' NOT NULL,
	"source_document_ref" text,
	"is_multi_currency" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'Draft' NOT NULL,
	"is_reversing" boolean DEFAULT false NOT NULL,
	"reversed_entry_id" uuid,
	"reversing_entry_id" uuid,
	"total_debits" numeric(28, 8) NOT NULL,
	"total_credits" numeric(28, 8) NOT NULL,
	"created_by" uuid NOT NULL,
	"submitted_by" uuid,
	"submitted_at" timestamp (3) with time zone,
	"approved_by" uuid,
	"approved_at" timestamp (3) with time zone,
	"rejected_by" uuid,
	"rejected_at" timestamp (3) with time zone,
	"rejection_reason" text,
	"posted_by" uuid,
	"posted_at" timestamp (3) with time zone,
	"reversed_by" uuid,
	"reversed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "journal_entries_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "journal_lines" (
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"journal_entry_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"line_number" smallint NOT NULL,
	"account_id" uuid NOT NULL,
	"currency" text NOT NULL,
	"debit_amount" numeric(28, 8),
	"credit_amount" numeric(28, 8),
	"functional_debit_amount" numeric(28, 8),
	"functional_credit_amount" numeric(28, 8),
	"exchange_rate" numeric(28, 12) NOT NULL,
	"exchange_rate_id" uuid,
	"exchange_rate_leg_ids" uuid[] DEFAULT '{}' NOT NULL,
	"memo" text,
	"dimensions" jsonb,
	"intercompany_partner_id" uuid,
	CONSTRAINT "journal_lines_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
CREATE TABLE "period_reopen_history" (
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"period_id" uuid NOT NULL,
	"reason" text,
	"reopened_by" uuid NOT NULL,
	"reopened_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"previous_status" text DEFAULT 'Closed' NOT NULL,
	CONSTRAINT "period_reopen_history_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consolidation_groups" ADD CONSTRAINT "consolidation_groups_organization_id_parent_company_id_companies_organization_id_id_fk" FOREIGN KEY ("organization_id","parent_company_id") REFERENCES "public"."companies"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consolidation_members" ADD CONSTRAINT "consolidation_members_organization_id_group_id_consolidation_groups_organization_id_id_fk" FOREIGN KEY ("organization_id","group_id") REFERENCES "public"."consolidation_groups"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consolidation_members" ADD CONSTRAINT "consolidation_members_organization_id_company_id_companies_organization_id_id_fk" FOREIGN KEY ("organization_id","company_id") REFERENCES "public"."companies"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consolidation_runs" ADD CONSTRAINT "consolidation_runs_organization_id_group_id_consolidation_groups_organization_id_id_fk" FOREIGN KEY ("organization_id","group_id") REFERENCES "public"."consolidation_groups"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consolidation_trial_balances" ADD CONSTRAINT "consolidation_trial_balances_organization_id_run_id_consolidation_runs_organization_id_id_fk" FOREIGN KEY ("organization_id","run_id") REFERENCES "public"."consolidation_runs"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elimination_rules" ADD CONSTRAINT "elimination_rules_organization_id_group_id_consolidation_groups_organization_id_id_fk" FOREIGN KEY ("organization_id","group_id") REFERENCES "public"."consolidation_groups"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exchange_rates" ADD CONSTRAINT "exchange_rates_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intercompany_transactions" ADD CONSTRAINT "intercompany_transactions_organization_id_from_company_id_companies_organization_id_id_fk" FOREIGN KEY ("organization_id","from_company_id") REFERENCES "public"."companies"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intercompany_transactions" ADD CONSTRAINT "intercompany_transactions_organization_id_to_company_id_companies_organization_id_id_fk" FOREIGN KEY ("organization_id","to_company_id") REFERENCES "public"."companies"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "run_rate_usages" ADD CONSTRAINT "run_rate_usages_organization_id_run_id_consolidation_runs_organization_id_id_fk" FOREIGN KEY ("organization_id","run_id") REFERENCES "public"."consolidation_runs"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "run_rule_applications" ADD CONSTRAINT "run_rule_applications_organization_id_run_id_consolidation_runs_organization_id_id_fk" FOREIGN KEY ("organization_id","run_id") REFERENCES "public"."consolidation_runs"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_organization_id_company_id_companies_organization_id_id_fk" FOREIGN KEY ("organization_id","company_id") REFERENCES "public"."companies"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "companies" ADD CONSTRAINT "companies_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fiscal_periods" ADD CONSTRAINT "fiscal_periods_organization_id_fiscal_year_id_fiscal_years_organization_id_id_fk" FOREIGN KEY ("organization_id","fiscal_year_id") REFERENCES "public"."fiscal_years"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fiscal_years" ADD CONSTRAINT "fiscal_years_organization_id_company_id_companies_organization_id_id_fk" FOREIGN KEY ("organization_id","company_id") REFERENCES "public"."companies"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journal_entries" ADD CONSTRAINT "journal_entries_organization_id_company_id_companies_organization_id_id_fk" FOREIGN KEY ("organization_id","company_id") REFERENCES "public"."companies"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journal_lines" ADD CONSTRAINT "journal_lines_organization_id_journal_entry_id_journal_entries_organization_id_id_fk" FOREIGN KEY ("organization_id","journal_entry_id") REFERENCES "public"."journal_entries"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journal_lines" ADD CONSTRAINT "journal_lines_organization_id_account_id_accounts_organization_id_id_fk" FOREIGN KEY ("organization_id","account_id") REFERENCES "public"."accounts"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_org_created_idx" ON "audit_log" USING btree ("organization_id","created_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "idempotency_expires_idx" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "memberships_user_idx" ON "memberships" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "organizations_name_key_uq" ON "organizations" USING btree ("name_key");--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "sessions" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "consolidation_groups_name_uq" ON "consolidation_groups" USING btree ("organization_id","name_key");--> statement-breakpoint
CREATE INDEX "consolidation_groups_id_idx" ON "consolidation_groups" USING btree ("id");--> statement-breakpoint
CREATE INDEX "consolidation_runs_id_idx" ON "consolidation_runs" USING btree ("id");--> statement-breakpoint
CREATE INDEX "consolidation_runs_group_idx" ON "consolidation_runs" USING btree ("organization_id","group_id","year","period","status");--> statement-breakpoint
CREATE INDEX "consolidation_runs_list_idx" ON "consolidation_runs" USING btree ("organization_id","initiated_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "elimination_rules_id_idx" ON "elimination_rules" USING btree ("id");--> statement-breakpoint
CREATE INDEX "elimination_rules_group_idx" ON "elimination_rules" USING btree ("organization_id","group_id","priority","created_at","id");--> statement-breakpoint
CREATE INDEX "elimination_rules_debit_idx" ON "elimination_rules" USING btree ("organization_id","debit_account_id");--> statement-breakpoint
CREATE INDEX "elimination_rules_credit_idx" ON "elimination_rules" USING btree ("organization_id","credit_account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "exchange_rates_uq" ON "exchange_rates" USING btree ("organization_id","from_currency","to_currency","effective_date","rate_type");--> statement-breakpoint
CREATE INDEX "exchange_rates_id_idx" ON "exchange_rates" USING btree ("id");--> statement-breakpoint
CREATE INDEX "exchange_rates_list_idx" ON "exchange_rates" USING btree ("organization_id","effective_date" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "intercompany_id_idx" ON "intercompany_transactions" USING btree ("id");--> statement-breakpoint
CREATE INDEX "intercompany_list_idx" ON "intercompany_transactions" USING btree ("organization_id","transaction_date" DESC NULLS LAST,"created_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "intercompany_from_entry_idx" ON "intercompany_transactions" USING btree ("organization_id","from_journal_entry_id");--> statement-breakpoint
CREATE INDEX "intercompany_to_entry_idx" ON "intercompany_transactions" USING btree ("organization_id","to_journal_entry_id");--> statement-breakpoint
CREATE INDEX "run_rate_usages_rate_idx" ON "run_rate_usages" USING btree ("organization_id","exchange_rate_id");--> statement-breakpoint
CREATE INDEX "run_rule_applications_rule_idx" ON "run_rule_applications" USING btree ("organization_id","rule_id");--> statement-breakpoint
CREATE INDEX "account_balances_company_date_idx" ON "account_balances" USING btree ("organization_id","company_id","balance_date");--> statement-breakpoint
CREATE UNIQUE INDEX "accounts_number_uq" ON "accounts" USING btree ("organization_id","company_id","account_number");--> statement-breakpoint
CREATE INDEX "accounts_id_idx" ON "accounts" USING btree ("id");--> statement-breakpoint
CREATE INDEX "accounts_parent_idx" ON "accounts" USING btree ("organization_id","parent_account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "companies_name_uq" ON "companies" USING btree ("organization_id","name_key");--> statement-breakpoint
CREATE INDEX "companies_id_idx" ON "companies" USING btree ("id");--> statement-breakpoint
CREATE UNIQUE INDEX "fiscal_periods_year_number_uq" ON "fiscal_periods" USING btree ("organization_id","fiscal_year_id","period_number");--> statement-breakpoint
CREATE INDEX "fiscal_periods_company_idx" ON "fiscal_periods" USING btree ("organization_id","company_id","fiscal_year","period_number");--> statement-breakpoint
CREATE INDEX "fiscal_periods_id_idx" ON "fiscal_periods" USING btree ("id");--> statement-breakpoint
CREATE UNIQUE INDEX "fiscal_years_company_year_uq" ON "fiscal_years" USING btree ("organization_id","company_id","year");--> statement-breakpoint
CREATE INDEX "fiscal_years_id_idx" ON "fiscal_years" USING btree ("id");--> statement-breakpoint
CREATE UNIQUE INDEX "journal_entries_number_uq" ON "journal_entries" USING btree ("organization_id","company_id","entry_number");--> statement-breakpoint
CREATE INDEX "journal_entries_id_idx" ON "journal_entries" USING btree ("id");--> statement-breakpoint
CREATE INDEX "journal_entries_list_idx" ON "journal_entries" USING btree ("organization_id","transaction_date" DESC NULLS LAST,"entry_number" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "journal_entries_company_status_idx" ON "journal_entries" USING btree ("organization_id","company_id","status","transaction_date");--> statement-breakpoint
CREATE INDEX "journal_entries_company_period_idx" ON "journal_entries" USING btree ("organization_id","company_id","fiscal_year","fiscal_period");--> statement-breakpoint
CREATE UNIQUE INDEX "journal_lines_entry_line_uq" ON "journal_lines" USING btree ("organization_id","journal_entry_id","line_number");--> statement-breakpoint
CREATE INDEX "journal_lines_account_idx" ON "journal_lines" USING btree ("organization_id","account_id");--> statement-breakpoint
CREATE INDEX "period_reopen_history_period_idx" ON "period_reopen_history" USING btree ("organization_id","period_id","reopened_at" DESC NULLS LAST);