/**
 * The console's own confirmation and question dialogs, in place of the browser's window.confirm and
 * window.prompt: a modal <dialog> with a heading, labelled controls, Enter to answer and Escape to
 * cancel. `const { confirm, ask } = useConfirm()`; `await confirm({...})` is true when confirmed,
 * `await ask({...})` the text typed (possibly empty) or null when cancelled.
 */
import { createContext, type ReactNode, useCallback, useContext, useMemo, useRef, useState } from 'react';
import { Button, Dialog, Field, Form } from './ui.tsx';

export interface ConfirmOptions {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  /** an action that removes or cannot be undone: red button, the focus starts on Cancel */
  danger?: boolean;
}

export interface AskOptions {
  title: string;
  message?: ReactNode;
  /** the label of the text field */
  label: string;
  confirmLabel: string;
}

type Pending =
  | { kind: 'confirm'; options: ConfirmOptions; resolve: (ok: boolean) => void }
  | { kind: 'ask'; options: AskOptions; resolve: (text: string | null) => void };

interface Confirm {
  confirm(options: ConfirmOptions): Promise<boolean>;
  ask(options: AskOptions): Promise<string | null>;
}

const ConfirmContext = createContext<Confirm>({
  confirm: async () => false,
  ask: async () => null,
});

export function ConfirmProvider({ children }: { children: ReactNode }) {
  const [pending, setPending] = useState<Pending | null>(null);
  const current = useRef<Pending | null>(null);
  const open = useCallback((p: Pending) => {
    current.current = p;
    setPending(p);
  }, []);
  /** Answers the open question once (a closing dialog reports its close too). */
  const finish = useCallback((answer: boolean | string | null) => {
    const p = current.current;
    if (!p) return;
    current.current = null;
    setPending(null);
    if (p.kind === 'confirm') p.resolve(answer === true);
    else p.resolve(typeof answer === 'string' ? answer : null);
  }, []);
  const value = useMemo<Confirm>(
    () => ({
      confirm: (options) => new Promise((resolve) => open({ kind: 'confirm', options, resolve })),
      ask: (options) => new Promise((resolve) => open({ kind: 'ask', options, resolve })),
    }),
    [open],
  );
  return (
    <ConfirmContext.Provider value={value}>
      {children}
      <Dialog open={!!pending} title={pending?.options.title ?? ''} onClose={() => finish(null)}>
        {pending?.kind === 'confirm' ? (
          <ConfirmForm options={pending.options} onAnswer={finish} />
        ) : pending?.kind === 'ask' ? (
          <AskForm options={pending.options} onAnswer={finish} />
        ) : null}
      </Dialog>
    </ConfirmContext.Provider>
  );
}

function ConfirmForm(props: { options: ConfirmOptions; onAnswer: (ok: boolean) => void }) {
  const { options } = props;
  return (
    <Form onSubmit={() => props.onAnswer(true)}>
      <p>{options.message}</p>
      <div className="form-actions">
        <Button
          type="submit"
          variant={options.danger ? 'danger' : 'primary'}
          data-autofocus={options.danger ? undefined : true}
        >
          {options.confirmLabel}
        </Button>
        <Button onClick={() => props.onAnswer(false)} data-autofocus={options.danger ? true : undefined}>
          Cancel
        </Button>
      </div>
    </Form>
  );
}

function AskForm(props: { options: AskOptions; onAnswer: (text: string | null) => void }) {
  const { options } = props;
  const [text, setText] = useState('');
  return (
    <Form onSubmit={() => props.onAnswer(text.trim())}>
      {options.message ? <p>{options.message}</p> : null}
      <Field label={options.label}>
        <input value={text} onChange={(e) => setText(e.target.value)} data-autofocus />
      </Field>
      <div className="form-actions">
        <Button type="submit" variant="primary">
          {options.confirmLabel}
        </Button>
        <Button onClick={() => props.onAnswer(null)}>Cancel</Button>
      </div>
    </Form>
  );
}

export function useConfirm(): Confirm {
  return useContext(ConfirmContext);
}
