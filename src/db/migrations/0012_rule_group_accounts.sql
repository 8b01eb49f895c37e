-- An elimination rule may book to a group account of its own group's chart instead of a company
-- account: per side exactly one of the company account and the group account is set. Rules written
-- before keep their company accounts and satisfy the checks as they are.
ALTER TABLE "elimination_rules" ALTER COLUMN "debit_account_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "elimination_rules" ALTER COLUMN "credit_account_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "elimination_rules" ADD COLUMN "debit_group_account_id" uuid;--> statement-breakpoint
ALTER TABLE "elimination_rules" ADD COLUMN "credit_group_account_id" uuid;--> statement-breakpoint
-- The key the rules reference a group account by: the group is part of it, so a rule can only name
-- an account of its own group.
CREATE UNIQUE INDEX "group_accounts_group_id_uq" ON "group_accounts" USING btree ("organization_id","group_id","id");--> statement-breakpoint
ALTER TABLE "elimination_rules" ADD CONSTRAINT "elimination_rules_debit_group_account_fk" FOREIGN KEY ("organization_id","group_id","debit_group_account_id") REFERENCES "public"."group_accounts"("organization_id","group_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elimination_rules" ADD CONSTRAINT "elimination_rules_credit_group_account_fk" FOREIGN KEY ("organization_id","group_id","credit_group_account_id") REFERENCES "public"."group_accounts"("organization_id","group_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "elimination_rules_debit_group_idx" ON "elimination_rules" USING btree ("organization_id","debit_group_account_id");--> statement-breakpoint
CREATE INDEX "elimination_rules_credit_group_idx" ON "elimination_rules" USING btree ("organization_id","credit_group_account_id");--> statement-breakpoint
ALTER TABLE "elimination_rules" ADD CONSTRAINT "elimination_rules_debit_kind_ck" CHECK (("debit_account_id" IS NULL) <> ("debit_group_account_id" IS NULL));--> statement-breakpoint
ALTER TABLE "elimination_rules" ADD CONSTRAINT "elimination_rules_credit_kind_ck" CHECK (("credit_account_id" IS NULL) <> ("credit_group_account_id" IS NULL));
