/**
 * The console's small component kit: form fields with their error beside them, buttons, amounts,
 * status badges, the pager, tabs, dialogs and alerts. Plain elements with hand-written CSS (styles.css);
 * every control is a native, keyboard-usable element with a label.
 */
import {
  Children,
  cloneElement,
  isValidElement,
  type ReactElement,
  type ReactNode,
  useEffect,
  useId,
  useRef,
} from 'react';
import type { Money } from '../api/types.ts';
import { formatAmount, formatMoney, humanize, isNegative } from '../lib/format.ts';

export function PageHeader(props: { title: string; subtitle?: ReactNode; actions?: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Groupbook`;
  }, [props.title]);
  useEffect(() => {
    // Screen-reader users land on the new page's heading after a navigation.
    if (document.activeElement === document.body || document.activeElement?.closest('nav'))
      ref.current?.focus({ preventScroll: true });
  }, []);
  return (
    <header className="page-header">
      <div>
        <h1 ref={ref} tabIndex={-1}>
          {props.title}
        </h1>
        {props.subtitle ? <p className="subtitle">{props.subtitle}</p> : null}
      </div>
      {props.actions ? <div className="page-actions">{props.actions}</div> : null}
    </header>
  );
}

interface FieldProps {
  label: ReactNode;
  error?: string | undefined;
  hint?: ReactNode;
  className?: string;
  children: ReactElement<Record<string, unknown>>;
}

/** A label, its control, a hint and the API's message for that field. */
export function Field({ label, error, hint, className, children }: FieldProps) {
  const generated = useId();
  const child = Children.only(children);
  const id = (isValidElement(child) && (child.props.id as string | undefined)) || generated;
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ');
  return (
    <div className={`field${error ? ' has-error' : ''}${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      {cloneElement(child, {
        id,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': describedBy || undefined,
      })}
      {hint ? (
        <div className="hint" id={`${id}-hint`}>
          {hint}
        </div>
      ) : null}
      {error ? (
        <div className="error" id={`${id}-error`}>
          {error}
        </div>
      ) : null}
    </div>
  );
}

/**
 * A form whose submission stays in the page (the API is called instead), with the error that belongs
 * to no particular field above its fields. Browser validation is off: the API's messages are shown.
 */
export function Form(props: {
  onSubmit: () => void;
  error?: string | null | undefined;
  className?: string;
  'aria-label'?: string;
  children: ReactNode;
}) {
  return (
    <form
      className={props.className}
      aria-label={props['aria-label']}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        props.onSubmit();
      }}
    >
      {props.error ? <Alert kind="error">{props.error}</Alert> : null}
      {props.children}
    </form>
  );
}

/** A select over an enumeration of the API, its values shown as words ("FullConsolidation" → "Full consolidation"). */
export function EnumSelect<T extends string>(
  props: Omit<React.SelectHTMLAttributes<HTMLSelectElement>, 'onChange' | 'value'> & {
    values: readonly T[];
    value: T;
    onChange: (value: T) => void;
  },
) {
  const { values, value, onChange, ...rest } = props;
  return (
    <select {...rest} value={value} onChange={(e) => onChange(e.target.value as T)}>
      {values.map((v) => (
        <option key={v} value={v}>
          {humanize(v)}
        </option>
      ))}
    </select>
  );
}

export function Alert(props: { kind?: 'error' | 'info' | 'success' | 'warning'; children: ReactNode }) {
  const kind = props.kind ?? 'info';
  return (
    <div className={`alert alert-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {props.children}
    </div>
  );
}

export function ErrorText({ error }: { error: string | null | undefined }) {
  return error ? <Alert kind="error">{error}</Alert> : null;
}

/** An amount, right-aligned in tabular figures by its table cell; negative amounts in red. */
export function Amount(props: { money: Money | null | undefined; currency?: boolean; strong?: boolean }) {
  if (!props.money) return <span className="muted">—</span>;
  const negative = isNegative(props.money.value);
  const text = formatMoney(props.money, props.currency);
  const inner = props.strong ? <strong>{text}</strong> : text;
  return <span className={negative ? 'neg' : undefined}>{inner}</span>;
}

export function Num(props: { value: string | null | undefined; digits?: number }) {
  if (props.value === null || props.value === undefined) return <span className="muted">—</span>;
  return (
    <span className={isNegative(props.value) ? 'neg' : undefined}>
      {formatAmount(props.value, props.digits)}
    </span>
  );
}

const BADGE_TONE: Record<string, string> = {
  Draft: 'neutral',
  PendingApproval: 'warning',
  Approved: 'info',
  Posted: 'success',
  Reversed: 'muted',
  Open: 'success',
  Closed: 'muted',
  Unmatched: 'danger',
  PartiallyMatched: 'warning',
  Matched: 'success',
  VarianceApproved: 'info',
  Pending: 'neutral',
  InProgress: 'info',
  Completed: 'success',
  Failed: 'danger',
  Cancelled: 'muted',
  Skipped: 'muted',
  Applied: 'success',
  Error: 'danger',
  Warning: 'warning',
  Active: 'success',
  Inactive: 'muted',
};

export function Badge(props: { value: string; label?: string }) {
  const tone = BADGE_TONE[props.value] ?? 'neutral';
  return <span className={`badge badge-${tone}`}>{props.label ?? humanize(props.value)}</span>;
}

export function Button(
  props: React.ButtonHTMLAttributes<HTMLButtonElement> & {
    variant?: 'primary' | 'secondary' | 'danger' | 'ghost';
    size?: 'sm' | 'md';
    busy?: boolean;
  },
) {
  const { variant = 'secondary', size = 'md', busy, className, children, disabled, ...rest } = props;
  return (
    <button
      type="button"
      {...rest}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
      className={`btn btn-${variant}${size === 'sm' ? ' btn-sm' : ''}${className ? ` ${className}` : ''}`}
    >
      {children}
    </button>
  );
}

/** "1–50 of 10,000" with first / previous / next / last; the list is paged by the API. */
export function Pager(props: {
  total: number;
  limit: number;
  offset: number;
  onChange: (offset: number) => void;
  label?: string;
}) {
  const { total, limit, offset } = props;
  const pages = Math.max(1, Math.ceil(total / limit));
  const page = Math.floor(offset / limit) + 1;
  const from = total === 0 ? 0 : offset + 1;
  const to = Math.min(total, offset + limit);
  const nf = new Intl.NumberFormat();
  return (
    <nav className="pager" aria-label={props.label ?? 'Pages'}>
      <span className="pager-range" aria-live="polite">
        {nf.format(from)}–{nf.format(to)} of {nf.format(total)}
      </span>
      <Button size="sm" onClick={() => props.onChange(0)} disabled={page <= 1} aria-label="First page">
        «
      </Button>
      <Button
        size="sm"
        onClick={() => props.onChange(Math.max(0, offset - limit))}
        disabled={page <= 1}
        aria-label="Previous page"
      >
        ‹ Previous
      </Button>
      <span className="pager-page">
        Page {nf.format(page)} of {nf.format(pages)}
      </span>
      <Button
        size="sm"
        onClick={() => props.onChange(offset + limit)}
        disabled={page >= pages}
        aria-label="Next page"
      >
        Next ›
      </Button>
      <Button
        size="sm"
        onClick={() => props.onChange((pages - 1) * limit)}
        disabled={page >= pages}
        aria-label="Last page"
      >
        »
      </Button>
    </nav>
  );
}

export interface TabItem {
  id: string;
  label: ReactNode;
}

/** A tab list (arrow keys move between tabs); the selected tab is kept by the caller (often the URL). */
export function Tabs(props: {
  items: TabItem[];
  selected: string;
  onSelect: (id: string) => void;
  label: string;
}) {
  const refs = useRef<Array<HTMLButtonElement | null>>([]);
  const index = props.items.findIndex((t) => t.id === props.selected);
  const move = (to: number) => {
    const n = props.items.length;
    const next = (to + n) % n;
    refs.current[next]?.focus();
    props.onSelect(props.items[next]!.id);
  };
  return (
    <div className="tabs" role="tablist" aria-label={props.label}>
      {props.items.map((tab, i) => (
        <button
          key={tab.id}
          ref={(el) => {
            refs.current[i] = el;
          }}
          type="button"
          role="tab"
          id={`tab-${tab.id}`}
          aria-selected={tab.id === props.selected}
          tabIndex={tab.id === props.selected ? 0 : -1}
          onClick={() => props.onSelect(tab.id)}
          onKeyDown={(e) => {
            if (e.key === 'ArrowRight') move(index + 1);
            else if (e.key === 'ArrowLeft') move(index - 1);
            else if (e.key === 'Home') move(0);
            else if (e.key === 'End') move(props.items.length - 1);
            else return;
            e.preventDefault();
          }}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}

/**
 * A modal dialog (native <dialog>: focus stays inside, Escape closes, focus returns afterwards to what
 * had it). On opening, the focus goes to the element marked `data-autofocus`, if any.
 */
export function Dialog(props: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
      dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    }
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog
      ref={ref}
      className={`dialog${props.wide ? ' dialog-wide' : ''}`}
      aria-labelledby={titleId}
      onClose={() => {
        props.onClose();
        // Back to the control that opened the dialog, when it is still on the page.
        if (opener.current?.isConnected) opener.current.focus();
      }}
    >
      {props.open ? (
        <>
          <header className="dialog-header">
            <h2 id={titleId}>{props.title}</h2>
            <button type="button" className="btn btn-ghost btn-sm" onClick={props.onClose} aria-label="Close">
              ✕
            </button>
          </header>
          <div className="dialog-body">{props.children}</div>
        </>
      ) : null}
    </dialog>
  );
}

export function Empty(props: { children: ReactNode }) {
  return <div className="empty">{props.children}</div>;
}

/** Placeholder rows while a first page loads (later pages keep showing the previous one). */
export function Loading(props: { label?: string }) {
  return (
    <div className="loading" role="status" aria-live="polite">
      {props.label ?? 'Loading…'}
    </div>
  );
}

interface QueryLike<T> {
  isPending: boolean;
  error: Error | null;
  data: T | undefined;
}

/**
 * A query's data once it has arrived: meanwhile a loading line, an error as an alert, and `empty`'s
 * message when it says the data is empty (later pages keep showing the previous page meanwhile).
 */
export function Loaded<T>(props: {
  query: QueryLike<T>;
  loading?: string;
  empty?: (data: T) => ReactNode | null;
  children: (data: T) => ReactNode;
}) {
  const { query } = props;
  if (query.isPending) return <Loading label={props.loading} />;
  if (query.error) return <Alert kind="error">{query.error.message}</Alert>;
  if (query.data === undefined) return null;
  const empty = props.empty?.(query.data);
  if (empty) return <Empty>{empty}</Empty>;
  return <>{props.children(query.data)}</>;
}

export function Card(props: {
  title?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section className={`card${props.className ? ` ${props.className}` : ''}`}>
      {props.title || props.actions ? (
        <header className="card-header">
          {props.title ? <h2>{props.title}</h2> : <span />}
          {props.actions ? <div className="card-actions">{props.actions}</div> : null}
        </header>
      ) : null}
      <div className="card-body">{props.children}</div>
    </section>
  );
}

export function Definition(props: { items: Array<[ReactNode, ReactNode]> }) {
  return (
    <dl className="definition">
      {props.items.map(([k, v], i) => (
        <div key={i}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}
