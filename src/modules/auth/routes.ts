import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteApp } from '../../http/route-app.ts';
import { invalid } from '../../domain/errors.ts';
import { NoContent, responses } from '../../http/responses.ts';
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

export const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  sessionRoutes(app);
  currentUserRoutes(app);
};

/** Register, log in, log out, the current user. */
function sessionRoutes(app: RouteApp): void {
  const { db } = app.deps;

  app.post(
    '/api/auth/register',
    {
      config: { public: true, errors: ['PasswordWeakError', 'UserExistsError'] },
      schema: {
        tags,
        summary: 'Register a user',
        description: 'Creates a user with a local e-mail/password login. Does not log in.',
        body: Type.Object({
          email: Text(254),
          password: Password,
          displayName: Text(100),
          provider: Provider,
        }),
        response: responses({ 201: Type.Object({ user: User }) }, { public: true, extra: [409] }),
      },
    },
    async (request, reply) => reply.code(201).send({ user: await auth.register(db, request.body) }),
  );

  app.post(
    '/api/auth/login',
    {
      config: { public: true, errors: ['InvalidCredentialsError'] },
      schema: {
        tags,
        summary: 'Log in',
        description:
          'Returns a bearer token valid for 7 days. `{credentials: {email, password}}` is also accepted.',
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
        response: responses({ 200: Session }, { public: true, extra: [401] }),
      },
    },
    async (request) => {
      const body = request.body;
      const source = body.email === undefined && body.credentials ? body.credentials : body;
      if (source.email === undefined) throw invalid('/email', 'Required');
      if (source.password === undefined) throw invalid('/password', 'Required');
      return auth.login(db, source.email, source.password, app.deps.loginThrottle, request.ip);
    },
  );

  app.post(
    '/api/auth/logout',
    {
      config: { access: 'signedIn' },
      schema: {
        tags,
        summary: 'Log out',
        description: 'Revokes the presented token.',
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      await auth.logout(db, request.tokenHash!);
      return reply.code(204).send();
    },
  );

  app.get(
    '/api/auth/me',
    {
      config: { access: 'signedIn' },
      schema: {
        tags,
        summary: 'Current user',
        description: 'The caller and its memberships, ordered by organization name.',
        response: responses({ 200: Me }),
      },
    },
    async (request) => auth.me(db, request.user!.id),
  );
}

/** The current user: update, refresh the session, change password. */
function currentUserRoutes(app: RouteApp): void {
  const { db } = app.deps;

  app.put(
    '/api/auth/me',
    {
      config: { access: 'signedIn' },
      schema: {
        tags,
        summary: 'Update the current user',
        description: 'Changes the display name.',
        body: Type.Object({ displayName: Type.Optional(Text(100)) }),
        response: responses({ 200: Me }),
      },
    },
    async (request) => auth.updateMe(db, request.user!.id, request.body.displayName),
  );

  app.post(
    '/api/auth/refresh',
    {
      config: { access: 'signedIn' },
      schema: {
        tags,
        summary: 'Refresh the session',
        description: 'Issues a new token valid 7 days and revokes the presented one in the same transaction.',
        response: responses({ 200: Session }),
      },
    },
    async (request) => auth.refresh(db, request.user!, request.tokenHash!),
  );

  app.post(
    '/api/auth/change-password',
    {
      config: { access: 'signedIn', errors: ['ChangePasswordError', 'PasswordWeakError'] },
      schema: {
        tags,
        summary: 'Change password',
        description:
          'Replaces the password and revokes every token of the user, including the presented one.',
        body: Type.Object({
          currentPassword: Type.String({ minLength: 1, 'x-raw': true }),
          newPassword: Password,
        }),
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      await auth.changePassword(db, request.user!.id, request.body.currentPassword, request.body.newPassword);
      return reply.code(204).send();
    },
  );
}
