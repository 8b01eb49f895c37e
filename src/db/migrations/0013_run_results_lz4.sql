-- A consolidation run of a large group stores megabytes of results (the contributions of every
-- consolidated line, its trial balances, elimination entries and acquisition analysis). PostgreSQL's
-- default compression of large values (pglz) costs more CPU than writing them; lz4 compresses them
-- about as well several times faster. Servers built without lz4 (and the embedded database) keep the
-- default: the change is an optimisation only, so an unsupported method is skipped.
DO $$
BEGIN
  ALTER TABLE "consolidation_line_contributions" ALTER COLUMN "data" SET COMPRESSION lz4;
  ALTER TABLE "consolidation_trial_balances" ALTER COLUMN "data" SET COMPRESSION lz4;
  ALTER TABLE "consolidation_runs" ALTER COLUMN "validation_result" SET COMPRESSION lz4;
  ALTER TABLE "consolidation_runs" ALTER COLUMN "eliminations" SET COMPRESSION lz4;
  ALTER TABLE "consolidation_runs" ALTER COLUMN "exchange_rates_used" SET COMPRESSION lz4;
  ALTER TABLE "consolidation_runs" ALTER COLUMN "acquisition_analysis" SET COMPRESSION lz4;
  ALTER TABLE "consolidation_runs" ALTER COLUMN "elimination_entries" SET COMPRESSION lz4;
  ALTER TABLE "consolidation_runs" ALTER COLUMN "members" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END
$$;
