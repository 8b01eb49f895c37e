import { type RouteApp, routesPlugin } from '../../http/route-app.ts';
import { invalid } from '../../domain/errors.ts';
import { noContent, route } from '../../http/route.ts';
import { RoleSchema, Text, Timestamp, Type, Uuid } from '../../http/schemas.ts';
import * as auth from './service.ts';

const User = Type.Object({
  id: Uuid,
  email: Type.String(),
  displayName: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
const Session = Type.Object({
  token: Type.String(),
  user: User,
  provider: Type.Literal('local'),
  expiresAt: Timestamp,
});
const Me = Type.Object({
  user: User,
  memberships: Type.Array(
    Type.Object({ organizationId: Uuid, organizationName: Type.String(), role: RoleSchema }),
  ),
});
const Password = Type.String({ 'x-raw': true });
const Provider = Type.Optional(Type.Literal('local'));
const tags = ['Authentication'];

export const authRoutes = routesPlugin(sessionRoutes, currentUserRoutes);

/** Register, log in, log out, the current user. */
function sessionRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'POST',
    url: '/api/auth/register',
    tags,
    summary: 'Register a user',
    description: 'Creates a user with a local e-mail/password login. Does not log in.',
    public: true,
    errors: ['PasswordWeakError', 'UserExistsError'],
    body: Type.Object({
      email: Text(254),
      password: Password,
      displayName: Text(100),
      provider: Provider,
    }),
    response: { 201: Type.Object({ user: User }) },
    errorAnswers: { public: true, extra: [409] },
    handler: async (request, reply) => reply.code(201).send({ user: await auth.register(db, request.body) }),
  });

  route(app, {
    method: 'POST',
    url: '/api/auth/login',
    tags,
    summary: 'Log in',
    description:
      'Returns a bearer token valid for 7 days. `{credentials: {email, password}}` is also accepted.',
    public: true,
    errors: ['InvalidCredentialsError'],
    body: Type.Object({
      email: Type.Optional(Type.String({ maxLength: 254 })),
      password: Type.Optional(Type.String({ minLength: 1, maxLength: 128, 'x-raw': true })),
      provider: Provider,
      credentials: Type.Optional(
        Type.Object({
          email: Type.String({ maxLength: 254 }),
          password: Type.String({ minLength: 1, maxLength: 128, 'x-raw': true }),
        }),
      ),
    }),
    response: { 200: Session },
    errorAnswers: { public: true, extra: [401] },
    handler: async (request) => {
      const body = request.body;
      const source = body.email === undefined && body.credentials ? body.credentials : body;
      if (source.email === undefined) throw invalid('/email', 'Required');
      if (source.password === undefined) throw invalid('/password', 'Required');
      return auth.login(db, source.email, source.password, app.deps.loginThrottle, request.ip);
    },
  });

  route(app, {
    method: 'POST',
    url: '/api/auth/logout',
    tags,
    summary: 'Log out',
    description: 'Revokes the presented token.',
    access: 'signedIn',
    ...noContent,
    handler: async ({ tokenHash }) => auth.logout(db, tokenHash!),
  });

  route(app, {
    method: 'GET',
    url: '/api/auth/me',
    tags,
    summary: 'Current user',
    description: 'The caller and its memberships, ordered by organization name.',
    access: 'signedIn',
    response: { 200: Me },
    handler: async ({ user }) => auth.me(db, user!.id),
  });
}

/** The current user: update, refresh the session, change password. */
function currentUserRoutes(app: RouteApp): void {
  const { db } = app.deps;

  route(app, {
    method: 'PUT',
    url: '/api/auth/me',
    tags,
    summary: 'Update the current user',
    description: 'Changes the display name.',
    access: 'signedIn',
    body: Type.Object({ displayName: Type.Optional(Text(100)) }),
    response: { 200: Me },
    handler: async ({ user, body }) => auth.updateMe(db, user!.id, body.displayName),
  });

  route(app, {
    method: 'POST',
    url: '/api/auth/refresh',
    tags,
    summary: 'Refresh the session',
    description: 'Issues a new token valid 7 days and revokes the presented one in the same transaction.',
    access: 'signedIn',
    response: { 200: Session },
    handler: async ({ user, tokenHash }) => auth.refresh(db, user!, tokenHash!),
  });

  route(app, {
    method: 'POST',
    url: '/api/auth/change-password',
    tags,
    summary: 'Change password',
    description: 'Replaces the password and revokes every token of the user, including the presented one.',
    access: 'signedIn',
    errors: ['ChangePasswordError', 'PasswordWeakError'],
    body: Type.Object({
      currentPassword: Type.String({ minLength: 1, 'x-raw': true }),
      newPassword: Password,
    }),
    ...noContent,
    handler: async ({ user, body }) =>
      auth.changePassword(db, user!.id, body.currentPassword, body.newPassword),
  });
}
