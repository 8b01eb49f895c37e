/** Sign in and sign up (the only screens reachable without a session). */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, call } from '../api/client.ts';
import { Alert, Button, Field } from '../components/ui.tsx';
import { type FormErrors, formErrors, NO_ERRORS } from '../lib/errors.ts';
import { saveSession } from '../lib/session.ts';

function AuthFrame(props: { title: string; children: React.ReactNode }) {
  useEffect(() => {
    document.title = `${props.title} · Groupbook`;
  }, [props.title]);
  return (
    <div className="auth-page">
      <main className="auth-card" id="main">
        <div className="brand brand-dark">
          <img src="/favicon.svg" alt="" width={32} height={32} />
          <span>Groupbook</span>
        </div>
        <h1>{props.title}</h1>
        {props.children}
      </main>
    </div>
  );
}

/** Only same-site paths are followed after sign-in. */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

/** Logs in and keeps the session (the token, its expiry and who it belongs to). */
async function logIn(email: string, password: string): Promise<void> {
  const session = await call(api.POST('/api/auth/login', { body: { email, password } }));
  saveSession({
    token: session.token,
    expiresAt: session.expiresAt,
    userId: session.user.id,
    email: session.user.email,
  });
}

export function SignIn() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState(params.get('email') ?? '');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      await logIn(email, password);
      queryClient.clear();
      navigate(safeNext(params.get('next')), { replace: true });
    } catch (err) {
      setErrors(formErrors(err, ['/email', '/password']));
      setBusy(false);
    }
  };

  return (
    <AuthFrame title="Sign in">
      {params.get('registered') ? <Alert kind="success">Your account is ready. Sign in.</Alert> : null}
      <form onSubmit={submit} noValidate>
        {errors.general ? <Alert kind="error">{errors.general}</Alert> : null}
        <Field label="E-mail" error={errors.fields['/email']}>
          <input
            type="email"
            autoComplete="username"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            required
            autoFocus
          />
        </Field>
        <Field label="Password" error={errors.fields['/password']}>
          <input
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            required
          />
        </Field>
        <Button type="submit" variant="primary" busy={busy} className="btn-block">
          Sign in
        </Button>
      </form>
      <p className="auth-switch">
        New to Groupbook? <Link to="/sign-up">Create an account</Link>
      </p>
    </AuthFrame>
  );
}

export function SignUp() {
  const navigate = useNavigate();
  const [displayName, setDisplayName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      await call(api.POST('/api/auth/register', { body: { email, password, displayName } }));
      // Registration does not sign in: sign in right away with the same credentials.
      await logIn(email, password);
      navigate('/organizations', { replace: true });
    } catch (err) {
      setErrors(formErrors(err, ['/email', '/password', '/displayName']));
      setBusy(false);
    }
  };

  return (
    <AuthFrame title="Create your account">
      <form onSubmit={submit} noValidate>
        {errors.general ? <Alert kind="error">{errors.general}</Alert> : null}
        <Field label="Your name" error={errors.fields['/displayName']}>
          <input
            autoComplete="name"
            value={displayName}
            onChange={(e) => setDisplayName(e.target.value)}
            required
            autoFocus
          />
        </Field>
        <Field label="E-mail" error={errors.fields['/email']}>
          <input type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field
          label="Password"
          error={errors.fields['/password']}
          hint="At least 8 characters with a lower-case letter, an upper-case letter and a digit."
        >
          <input
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </Field>
        <Button type="submit" variant="primary" busy={busy} className="btn-block">
          Create account
        </Button>
      </form>
      <p className="auth-switch">
        Already registered? <Link to="/sign-in">Sign in</Link>
      </p>
    </AuthFrame>
  );
}
