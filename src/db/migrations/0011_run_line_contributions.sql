CREATE TABLE "consolidation_line_contributions" (
	"organization_id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	"view" text NOT NULL,
	"line_id" text NOT NULL,
	"account_number" text NOT NULL,
	"data" text NOT NULL,
	CONSTRAINT "consolidation_line_contributions_organization_id_run_id_view_line_id_pk" PRIMARY KEY("organization_id","run_id","view","line_id")
);
--> statement-breakpoint
ALTER TABLE "consolidation_line_contributions" ADD CONSTRAINT "consolidation_line_contributions_organization_id_run_id_consolidation_runs_organization_id_id_fk" FOREIGN KEY ("organization_id","run_id") REFERENCES "public"."consolidation_runs"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "consolidation_line_contributions_account_idx" ON "consolidation_line_contributions" USING btree ("organization_id","run_id","view","account_number");