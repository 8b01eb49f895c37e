/**
 * The signed-in session: the bearer token from `POST /api/auth/login`, kept in localStorage so that a
 * reload or a second tab stays signed in until the token expires (7 days) or the user signs out.
 */
export interface Session {
  token: string;
  expiresAt: string;
  userId: string;
  email: string;
}

const KEY = 'groupbook.session';

export function readSession(): Session | null {
  try {
    const raw = localStorage.getItem(KEY);
    if (!raw) return null;
    const session = JSON.parse(raw) as Session;
    if (!session.token || Date.parse(session.expiresAt) <= Date.now()) {
      localStorage.removeItem(KEY);
      return null;
    }
    return session;
  } catch {
    return null;
  }
}

export function saveSession(session: Session): void {
  localStorage.setItem(KEY, JSON.stringify(session));
}

export function clearSession(): void {
  localStorage.removeItem(KEY);
}
