ALTER TABLE "account_month_balances" DROP CONSTRAINT "account_month_balances_organization_id_company_id_account_id_month_start_is_closing_pk";--> statement-breakpoint
ALTER TABLE "account_month_balances" ADD COLUMN "is_adjustment" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Rebuild the roll-up from the daily balances with adjustment-period (13) totals kept apart.
DELETE FROM "account_month_balances";--> statement-breakpoint
INSERT INTO "account_month_balances" ("organization_id", "company_id", "account_id", "month_start", "is_closing", "is_adjustment", "debit_total", "credit_total")
SELECT "organization_id", "company_id", "account_id", date_trunc('month', "balance_date")::date, "is_closing", "fiscal_period" = 13, sum("debit_total"), sum("credit_total")
FROM "account_balances"
GROUP BY "organization_id", "company_id", "account_id", date_trunc('month', "balance_date")::date, "is_closing", "fiscal_period" = 13;--> statement-breakpoint
ALTER TABLE "account_month_balances" ALTER COLUMN "is_adjustment" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "account_month_balances" ADD CONSTRAINT "account_month_balances_organization_id_company_id_account_id_month_start_is_closing_is_adjustment_pk" PRIMARY KEY("organization_id","company_id","account_id","month_start","is_closing","is_adjustment");
