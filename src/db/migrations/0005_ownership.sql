ALTER TABLE "consolidation_members" ADD COLUMN "held_by_company_id" uuid;--> statement-breakpoint
ALTER TABLE "consolidation_members" ADD COLUMN "acquisition" jsonb;--> statement-breakpoint
ALTER TABLE "consolidation_runs" ADD COLUMN "acquisition_analysis" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "consolidation_members" ADD CONSTRAINT "consolidation_members_holder_fk" FOREIGN KEY ("organization_id","group_id","held_by_company_id") REFERENCES "public"."consolidation_members"("organization_id","group_id","company_id") ON DELETE no action ON UPDATE no action;