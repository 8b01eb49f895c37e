CREATE TABLE "account_currency_balances" (
	"organization_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"currency" text NOT NULL,
	"balance_date" date NOT NULL,
	"foreign_net" numeric(28, 8) NOT NULL,
	"functional_net" numeric(28, 8) NOT NULL,
	CONSTRAINT "account_currency_balances_organization_id_company_id_account_id_currency_balance_date_pk" PRIMARY KEY("organization_id","company_id","account_id","currency","balance_date")
);
--> statement-breakpoint
CREATE TABLE "account_currency_month_balances" (
	"organization_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"currency" text NOT NULL,
	"month_start" date NOT NULL,
	"foreign_net" numeric(28, 8) NOT NULL,
	"functional_net" numeric(28, 8) NOT NULL,
	CONSTRAINT "account_currency_month_balances_organization_id_company_id_month_start_account_id_currency_pk" PRIMARY KEY("organization_id","company_id","month_start","account_id","currency")
);
--> statement-breakpoint
CREATE TABLE "fx_revaluations" (
	"id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"as_of_date" date NOT NULL,
	"rate_type" text,
	"auto_reverse" boolean NOT NULL,
	"entry_id" uuid,
	"reversal_entry_id" uuid,
	"lines" jsonb NOT NULL,
	"rates" jsonb NOT NULL,
	"created_by" uuid NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "fx_revaluations_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "unrealized_fx_gain_loss_account_id" uuid;--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "realized_fx_gain_loss_account_id" uuid;--> statement-breakpoint
ALTER TABLE "fx_revaluations" ADD CONSTRAINT "fx_revaluations_organization_id_company_id_companies_organization_id_id_fk" FOREIGN KEY ("organization_id","company_id") REFERENCES "public"."companies"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fx_revaluations" ADD CONSTRAINT "fx_revaluations_organization_id_entry_id_journal_entries_organization_id_id_fk" FOREIGN KEY ("organization_id","entry_id") REFERENCES "public"."journal_entries"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "account_currency_balances_company_date_idx" ON "account_currency_balances" USING btree ("organization_id","company_id","balance_date");--> statement-breakpoint
CREATE INDEX "fx_revaluations_company_idx" ON "fx_revaluations" USING btree ("organization_id","company_id","as_of_date" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "fx_revaluations_id_idx" ON "fx_revaluations" USING btree ("id");--> statement-breakpoint
CREATE INDEX "fx_revaluations_entry_idx" ON "fx_revaluations" USING btree ("organization_id","entry_id");--> statement-breakpoint
CREATE INDEX "fx_revaluations_reversal_idx" ON "fx_revaluations" USING btree ("organization_id","reversal_entry_id");--> statement-breakpoint
-- Existing ledgers: the balances per transaction currency of the posted and reversed entries so far.
INSERT INTO "account_currency_balances" ("organization_id", "company_id", "account_id", "currency", "balance_date", "foreign_net", "functional_net")
SELECT l."organization_id", e."company_id", l."account_id", l."currency", e."transaction_date",
       sum(coalesce(l."debit_amount", 0) - coalesce(l."credit_amount", 0)),
       sum(coalesce(l."functional_debit_amount", 0) - coalesce(l."functional_credit_amount", 0))
FROM "journal_lines" l
JOIN "journal_entries" e ON e."organization_id" = l."organization_id" AND e."id" = l."journal_entry_id"
JOIN "companies" c ON c."organization_id" = e."organization_id" AND c."id" = e."company_id"
WHERE e."status" IN ('Posted', 'Reversed') AND l."currency" <> c."functional_currency"
GROUP BY 1, 2, 3, 4, 5;--> statement-breakpoint
INSERT INTO "account_currency_month_balances" ("organization_id", "company_id", "account_id", "currency", "month_start", "foreign_net", "functional_net")
SELECT "organization_id", "company_id", "account_id", "currency", date_trunc('month', "balance_date")::date,
       sum("foreign_net"), sum("functional_net")
FROM "account_currency_balances"
GROUP BY 1, 2, 3, 4, 5;
