/** Inputs shared by several screens: currency codes, companies, dates. */
import type { Company } from '../api/types.ts';

/** Offered in the currency inputs; any code the API accepts may be typed. */
export const CURRENCIES = [
  'USD',
  'EUR',
  'GBP',
  'CHF',
  'JPY',
  'CAD',
  'AUD',
  'CNY',
  'SEK',
  'NOK',
  'DKK',
  'PLN',
];

/** A currency input with common codes offered; any code of the API's list may be typed. */
export function CurrencyInput(props: React.InputHTMLAttributes<HTMLInputElement>) {
  return (
    <>
      <input
        {...props}
        list="currency-codes"
        maxLength={3}
        autoComplete="off"
        spellCheck={false}
        className={`code-input ${props.className ?? ''}`}
        onChange={(e) => {
          e.target.value = e.target.value.toUpperCase();
          props.onChange?.(e);
        }}
      />
      <datalist id="currency-codes">
        {CURRENCIES.map((c) => (
          <option key={c} value={c} />
        ))}
      </datalist>
    </>
  );
}

/** A company select; `allowAll` adds an "All companies" option with the value "". */
export function CompanySelect(
  props: Omit<React.SelectHTMLAttributes<HTMLSelectElement>, 'onChange'> & {
    companies: Company[];
    value: string;
    onChange: (id: string) => void;
    allowAll?: string;
    placeholder?: string;
  },
) {
  const { companies, value, onChange, allowAll, placeholder, ...rest } = props;
  return (
    <select {...rest} value={value} onChange={(e) => onChange(e.target.value)}>
      {allowAll !== undefined ? <option value="">{allowAll}</option> : null}
      {placeholder !== undefined && allowAll === undefined ? (
        <option value="" disabled>
          {placeholder}
        </option>
      ) : null}
      {companies.map((c) => (
        <option key={c.id} value={c.id}>
          {c.name}
          {c.isActive ? '' : ' (inactive)'} · {c.functionalCurrency}
        </option>
      ))}
    </select>
  );
}
