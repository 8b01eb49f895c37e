-- Posted and reversed journal entries are immutable (contract 3.7.5): the only change a posted entry
-- may take is the transition Posted -> Reversed, and the lines of posted or reversed entries never
-- change. The service enforces this too; these triggers make it hold for any client of the database.
CREATE OR REPLACE FUNCTION groupbook_guard_journal_entry() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD.status IN ('Posted', 'Reversed') THEN
      RAISE EXCEPTION 'journal entry % is % and cannot be deleted', OLD.id, OLD.status USING ERRCODE = 'GB001';
    END IF;
    RETURN OLD;
  END IF;
  IF OLD.status = 'Reversed' THEN
    RAISE EXCEPTION 'journal entry % is reversed and cannot change', OLD.id USING ERRCODE = 'GB001';
  END IF;
  IF OLD.status = 'Posted' THEN
    IF NEW.status NOT IN ('Posted', 'Reversed')
      OR NEW.company_id IS DISTINCT FROM OLD.company_id
      OR NEW.entry_number IS DISTINCT FROM OLD.entry_number
      OR NEW.description IS DISTINCT FROM OLD.description
      OR NEW.transaction_date IS DISTINCT FROM OLD.transaction_date
      OR NEW.posting_date IS DISTINCT FROM OLD.posting_date
      OR NEW.fiscal_year IS DISTINCT FROM OLD.fiscal_year
      OR NEW.fiscal_period IS DISTINCT FROM OLD.fiscal_period
      OR NEW.entry_type IS DISTINCT FROM OLD.entry_type
      OR NEW.total_debits IS DISTINCT FROM OLD.total_debits
      OR NEW.total_credits IS DISTINCT FROM OLD.total_credits
      OR NEW.posted_by IS DISTINCT FROM OLD.posted_by
      OR NEW.posted_at IS DISTINCT FROM OLD.posted_at THEN
      RAISE EXCEPTION 'journal entry % is posted and cannot change', OLD.id USING ERRCODE = 'GB001';
    END IF;
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER journal_entries_immutable
  BEFORE UPDATE OR DELETE ON journal_entries
  FOR EACH ROW EXECUTE FUNCTION groupbook_guard_journal_entry();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION groupbook_guard_journal_line() RETURNS trigger AS $$
DECLARE
  entry_status text;
BEGIN
  SELECT status INTO entry_status FROM journal_entries
    WHERE organization_id = OLD.organization_id AND id = OLD.journal_entry_id;
  IF entry_status IN ('Posted', 'Reversed') THEN
    RAISE EXCEPTION 'lines of % journal entry % cannot change', entry_status, OLD.journal_entry_id
      USING ERRCODE = 'GB001';
  END IF;
  IF TG_OP = 'DELETE' THEN
    RETURN OLD;
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER journal_lines_immutable
  BEFORE UPDATE OR DELETE ON journal_lines
  FOR EACH ROW EXECUTE FUNCTION groupbook_guard_journal_line();
