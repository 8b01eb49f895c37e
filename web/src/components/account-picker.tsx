/**
 * Account search for journal lines: type a number ("11" → 1100, 1110 …) or part of a name ("recei"),
 * move with the arrow keys, Enter picks. An ARIA combobox over the company's postable accounts.
 */
import { useId, useMemo, useRef, useState } from 'react';
import type { Account } from '../api/types.ts';

export function accountLabel(a: Pick<Account, 'accountNumber' | 'name'>): string {
  return `${a.accountNumber} ${a.name}`;
}

/** Accounts whose number starts with the query first, then those whose name contains it. */
export function searchAccounts(accounts: Account[], query: string, max = 50): Account[] {
  const q = query.trim().toLowerCase();
  if (!q) return accounts.slice(0, max);
  const byNumber = accounts.filter((a) => a.accountNumber.startsWith(q));
  const byName = accounts.filter(
    (a) =>
      !a.accountNumber.startsWith(q) &&
      (a.name.toLowerCase().includes(q) || accountLabel(a).toLowerCase().startsWith(q)),
  );
  return [...byNumber, ...byName].slice(0, max);
}

interface Props {
  accounts: Account[];
  value: string;
  onChange: (accountId: string) => void;
  id?: string;
  disabled?: boolean;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
  'aria-label'?: string;
}

export function AccountPicker(props: Props) {
  const generated = useId();
  const id = props.id ?? generated;
  const listId = `${id}-list`;
  const selected = props.accounts.find((a) => a.id === props.value);
  const [query, setQuery] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const options = useMemo(() => searchAccounts(props.accounts, query ?? ''), [props.accounts, query]);

  const pick = (a: Account | undefined) => {
    if (a) props.onChange(a.id);
    setQuery(null);
    setOpen(false);
  };

  return (
    <div className="combo">
      <input
        ref={input}
        id={id}
        role="combobox"
        aria-expanded={open}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={open && options[active] ? `${id}-opt-${active}` : undefined}
        aria-invalid={props['aria-invalid']}
        aria-describedby={props['aria-describedby']}
        aria-label={props['aria-label']}
        autoComplete="off"
        spellCheck={false}
        disabled={props.disabled}
        placeholder="Number or name"
        value={query ?? (selected ? accountLabel(selected) : '')}
        onFocus={(e) => e.target.select()}
        onChange={(e) => {
          setQuery(e.target.value);
          setActive(0);
          setOpen(true);
        }}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            setOpen(true);
            setActive((i) => Math.min(i + 1, options.length - 1));
          } else if (e.key === 'ArrowUp') {
            setActive((i) => Math.max(i - 1, 0));
          } else if (e.key === 'Enter') {
            if (!open) return;
            pick(options[active]);
          } else if (e.key === 'Escape') {
            if (!open) return;
            setQuery(null);
            setOpen(false);
          } else if (e.key === 'Tab') {
            // Tabbing away with a query picks the best match, as a keyboard user expects.
            if (open && query) pick(options[active]);
            return;
          } else return;
          e.preventDefault();
        }}
        onBlur={() => {
          setOpen(false);
          setQuery(null);
        }}
      />
      {open ? (
        <ul className="combo-list" id={listId} role="listbox" aria-label="Accounts">
          {options.length === 0 ? (
            <li className="muted" role="option" aria-selected={false} aria-disabled>
              No postable account matches
            </li>
          ) : (
            options.map((a, i) => (
              <li
                key={a.id}
                id={`${id}-opt-${i}`}
                role="option"
                aria-selected={i === active}
                onMouseDown={(e) => {
                  e.preventDefault();
                  pick(a);
                }}
                onMouseEnter={() => setActive(i)}
              >
                <span className="acct-no">{a.accountNumber}</span>
                <span>{a.name}</span>
                <span className="acct-type">{a.accountType}</span>
              </li>
            ))
          )}
        </ul>
      ) : null}
    </div>
  );
}
