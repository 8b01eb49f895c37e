-- A completed run writes its acquisition analysis and elimination entries once and returns them as
-- they were written; nothing queries inside them. As json (kept as text, checked on the way in)
-- instead of jsonb (parsed into a binary tree on the way in) a large group's run writes its 2 MB of
-- them in about a third of the time.
ALTER TABLE "consolidation_runs" ALTER COLUMN "acquisition_analysis" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "consolidation_runs" ALTER COLUMN "acquisition_analysis" SET DATA TYPE json USING "acquisition_analysis"::json;--> statement-breakpoint
ALTER TABLE "consolidation_runs" ALTER COLUMN "acquisition_analysis" SET DEFAULT '[]'::json;--> statement-breakpoint
ALTER TABLE "consolidation_runs" ALTER COLUMN "elimination_entries" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "consolidation_runs" ALTER COLUMN "elimination_entries" SET DATA TYPE json USING "elimination_entries"::json;--> statement-breakpoint
ALTER TABLE "consolidation_runs" ALTER COLUMN "elimination_entries" SET DEFAULT '[]'::json;--> statement-breakpoint
-- The compression chosen for the run's large results (lz4 where the server has it) stays.
DO $$
BEGIN
  ALTER TABLE "consolidation_runs" ALTER COLUMN "acquisition_analysis" SET COMPRESSION lz4;
  ALTER TABLE "consolidation_runs" ALTER COLUMN "elimination_entries" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END
$$;
