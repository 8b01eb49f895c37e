CREATE TABLE "account_chart_versions" (
	"organization_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"version" bigint NOT NULL,
	CONSTRAINT "account_chart_versions_organization_id_company_id_pk" PRIMARY KEY("organization_id","company_id")
);
--> statement-breakpoint
ALTER TABLE "account_chart_versions" ADD CONSTRAINT "account_chart_versions_organization_id_company_id_companies_organization_id_id_fk" FOREIGN KEY ("organization_id","company_id") REFERENCES "public"."companies"("organization_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- The version of a company's chart of accounts rises in the same transaction as any change of its
-- accounts, whoever makes it (the service, an import, a hand-written statement): a consolidation run
-- that reads the versions in its snapshot may reuse a chart it read before at the same version. One
-- statement-level trigger per kind of change; companies in a fixed order, so that two transactions
-- changing the same companies wait for each other instead of deadlocking.
CREATE FUNCTION groupbook_raise_chart_version() RETURNS trigger AS $$
BEGIN
  INSERT INTO account_chart_versions AS v (organization_id, company_id, version)
    SELECT DISTINCT organization_id, company_id, 1 FROM changed_accounts ORDER BY organization_id, company_id
  ON CONFLICT (organization_id, company_id) DO UPDATE SET version = v.version + 1;
  RETURN NULL;
END
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE FUNCTION groupbook_raise_chart_version_on_update() RETURNS trigger AS $$
BEGIN
  INSERT INTO account_chart_versions AS v (organization_id, company_id, version)
    SELECT organization_id, company_id, 1
    FROM (SELECT organization_id, company_id FROM old_accounts
          UNION SELECT organization_id, company_id FROM new_accounts) AS c
    ORDER BY organization_id, company_id
  ON CONFLICT (organization_id, company_id) DO UPDATE SET version = v.version + 1;
  RETURN NULL;
END
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER accounts_chart_version_insert AFTER INSERT ON accounts
  REFERENCING NEW TABLE AS changed_accounts
  FOR EACH STATEMENT EXECUTE FUNCTION groupbook_raise_chart_version();
--> statement-breakpoint
CREATE TRIGGER accounts_chart_version_delete AFTER DELETE ON accounts
  REFERENCING OLD TABLE AS changed_accounts
  FOR EACH STATEMENT EXECUTE FUNCTION groupbook_raise_chart_version();
--> statement-breakpoint
CREATE TRIGGER accounts_chart_version_update AFTER UPDATE ON accounts
  REFERENCING OLD TABLE AS old_accounts NEW TABLE AS new_accounts
  FOR EACH STATEMENT EXECUTE FUNCTION groupbook_raise_chart_version_on_update();
--> statement-breakpoint
-- TRUNCATE names no rows: every company's chart counts as changed.
CREATE FUNCTION groupbook_raise_every_chart_version() RETURNS trigger AS $$
BEGIN
  INSERT INTO account_chart_versions AS v (organization_id, company_id, version)
    SELECT organization_id, id, 1 FROM companies ORDER BY organization_id, id
  ON CONFLICT (organization_id, company_id) DO UPDATE SET version = v.version + 1;
  RETURN NULL;
END
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER accounts_chart_version_truncate AFTER TRUNCATE ON accounts
  FOR EACH STATEMENT EXECUTE FUNCTION groupbook_raise_every_chart_version();
