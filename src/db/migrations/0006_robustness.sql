ALTER TABLE "idempotency_keys" ADD COLUMN "lease_expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "consolidation_runs" ADD COLUMN "executor_id" text;--> statement-breakpoint
ALTER TABLE "consolidation_runs" ADD COLUMN "lease_expires_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "consolidation_runs_lease_idx" ON "consolidation_runs" USING btree ("lease_expires_at");--> statement-breakpoint
-- An elimination rule references its two accounts by key: an account cannot be deleted while a rule
-- names it, and a rule cannot be written naming an account deleted meanwhile. NOT VALID: rules left
-- pointing at a deleted account by earlier versions stay readable (and are refused on their next update).
ALTER TABLE "elimination_rules" ADD CONSTRAINT "elimination_rules_debit_account_fk" FOREIGN KEY ("organization_id","debit_account_id") REFERENCES "public"."accounts"("organization_id","id") ON DELETE no action ON UPDATE no action NOT VALID;--> statement-breakpoint
ALTER TABLE "elimination_rules" ADD CONSTRAINT "elimination_rules_credit_account_fk" FOREIGN KEY ("organization_id","credit_account_id") REFERENCES "public"."accounts"("organization_id","id") ON DELETE no action ON UPDATE no action NOT VALID;--> statement-breakpoint
-- The journal-entry links of an intercompany transaction: deleting the (draft) entry sets the link to
-- null, also when the link is written concurrently with the delete. Links left dangling are cleared.
UPDATE "intercompany_transactions" t SET "from_journal_entry_id" = NULL WHERE "from_journal_entry_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "journal_entries" e WHERE e."organization_id" = t."organization_id" AND e."id" = t."from_journal_entry_id");--> statement-breakpoint
UPDATE "intercompany_transactions" t SET "to_journal_entry_id" = NULL WHERE "to_journal_entry_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "journal_entries" e WHERE e."organization_id" = t."organization_id" AND e."id" = t."to_journal_entry_id");--> statement-breakpoint
ALTER TABLE "intercompany_transactions" ADD CONSTRAINT "intercompany_transactions_from_entry_fk" FOREIGN KEY ("organization_id","from_journal_entry_id") REFERENCES "public"."journal_entries"("organization_id","id") ON DELETE SET NULL ("from_journal_entry_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intercompany_transactions" ADD CONSTRAINT "intercompany_transactions_to_entry_fk" FOREIGN KEY ("organization_id","to_journal_entry_id") REFERENCES "public"."journal_entries"("organization_id","id") ON DELETE SET NULL ("to_journal_entry_id") ON UPDATE no action;
--> statement-breakpoint
-- Runs unfinished when leases were introduced get one: orphans among them fail five minutes after the upgrade.
UPDATE "consolidation_runs" SET "executor_id" = 'before-leases', "lease_expires_at" = now() + interval '5 minutes' WHERE "status" IN ('Pending', 'InProgress');
