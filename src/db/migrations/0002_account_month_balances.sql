CREATE TABLE "account_month_balances" (
	"organization_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"month_start" date NOT NULL,
	"is_closing" boolean NOT NULL,
	"debit_total" numeric(28, 8) NOT NULL,
	"credit_total" numeric(28, 8) NOT NULL,
	CONSTRAINT "account_month_balances_organization_id_company_id_account_id_month_start_is_closing_pk" PRIMARY KEY("organization_id","company_id","account_id","month_start","is_closing")
);
--> statement-breakpoint
-- Existing ledgers: build the roll-up from the daily balances.
INSERT INTO "account_month_balances" ("organization_id", "company_id", "account_id", "month_start", "is_closing", "debit_total", "credit_total")
SELECT "organization_id", "company_id", "account_id", date_trunc('month', "balance_date")::date, "is_closing", sum("debit_total"), sum("credit_total")
FROM "account_balances"
GROUP BY "organization_id", "company_id", "account_id", date_trunc('month', "balance_date")::date, "is_closing";
