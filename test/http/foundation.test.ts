import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, PASSWORD, type TestContext, uniq } from '../helpers/app.ts';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => {
  await t.close();
});

describe('health and routing', () => {
  it('answers health publicly with a database check', async () => {
    const res = await t.get('/api/health');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', database: 'ok', version: '0.1.0' });
    expect(res.body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('echoes a valid X-Request-Id', async () => {
    const res = await t.get('/api/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers['x-request-id']).toBe('abc-123');
  });

  it('answers unknown paths with RouteNotFoundError and wrong methods with 405 + Allow', async () => {
    const missing = await t.get('/api/v1/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      _tag: 'RouteNotFoundError',
      message: expect.any(String),
      method: 'GET',
      path: '/api/v1/nothing-here',
    });
    const wrong = await t.req('PATCH', '/api/v1/organizations');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('GET, POST');
    expect(wrong.body).toMatchObject({
      _tag: 'MethodNotAllowedError',
      method: 'PATCH',
      allowedMethods: ['GET', 'POST'],
    });
    const head = await t.req('HEAD', '/api/health');
    expect(head.status).toBe(405);
  });

  it('ignores a single trailing slash', async () => {
    expect((await t.get('/api/health/')).status).toBe(200);
  });

  it('serves the OpenAPI document and the reference page publicly', async () => {
    const doc = await t.get('/api/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(doc.body.info.version).toBe('0.1.0');
    expect(doc.body.paths['/api/v1/organizations']).toBeDefined();
    expect(doc.body.paths['/api/v1/organizations'].get.security).toEqual([{ bearerAuth: [] }]);
    const page = await t.get('/api/docs');
    expect([200, 302]).toContain(page.status);
  });
});

describe('authentication', () => {
  it('registers, logs in, reads me, refreshes and logs out', async () => {
    const email = `${uniq('Mixed')}@Example.COM`;
    const reg = await t.post('/api/auth/register', {
      body: { email: `  ${email} `, password: PASSWORD, displayName: ' Ann ' },
    });
    expect(reg.status).toBe(201);
    expect(reg.body.user).toMatchObject({ email: email.toLowerCase(), displayName: 'Ann' });
    expect(reg.body.token).toBeUndefined();

    const login = await t.post('/api/auth/login', {
      body: { credentials: { email: email.toUpperCase(), password: PASSWORD } },
    });
    expect(login.status).toBe(200);
    expect(login.body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(login.body.provider).toBe('local');
    const expires = Date.parse(login.body.expiresAt) - Date.now();
    expect(expires).toBeGreaterThan(7 * 86400_000 - 60_000);
    expect(expires).toBeLessThanOrEqual(7 * 86400_000);

    const me = await t.get('/api/auth/me', { token: login.body.token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: { email: email.toLowerCase() }, memberships: [] });

    const renamed = await t.put('/api/auth/me', { token: login.body.token, body: { displayName: 'Annie' } });
    expect(renamed.body.user.displayName).toBe('Annie');
    expect(
      (await t.put('/api/auth/me', { token: login.body.token, body: { displayName: null } })).status,
    ).toBe(400);

    const refreshed = await t.post('/api/auth/refresh', { token: login.body.token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.token).not.toBe(login.body.token);
    expect((await t.get('/api/auth/me', { token: login.body.token })).status).toBe(401);

    const out = await t.post('/api/auth/logout', { token: refreshed.body.token });
    expect(out.status).toBe(204);
    expect(out.raw.body).toBe('');
    expect((await t.get('/api/auth/me', { token: refreshed.body.token })).status).toBe(401);
  });

  it('refuses duplicate e-mails, weak passwords and bad credentials', async () => {
    const u = await t.user('dup');
    const dup = await t.post('/api/auth/register', {
      body: { email: u.email.toUpperCase(), password: PASSWORD, displayName: 'x' },
    });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ _tag: 'UserExistsError', email: u.email });

    const weak = await t.post('/api/auth/register', {
      body: { email: `${uniq()}@x.io`, password: 'short', displayName: 'x' },
    });
    expect(weak.status).toBe(400);
    expect(weak.body._tag).toBe('PasswordWeakError');
    expect(weak.body.requirements.length).toBeGreaterThanOrEqual(3);

    const notString = await t.post('/api/auth/register', {
      body: { email: `${uniq()}@x.io`, password: 12345678, displayName: 'x' },
    });
    expect(notString.body._tag).toBe('ValidationError');

    const badEmail = await t.post('/api/auth/register', {
      body: { email: 'nope@localhost', password: PASSWORD, displayName: 'x' },
    });
    expect(badEmail.body).toMatchObject({ _tag: 'ValidationError', issues: [{ path: '/email' }] });

    const wrong = await t.post('/api/auth/login', { body: { email: u.email, password: 'Wrong-pass1' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ _tag: 'InvalidCredentialsError', message: expect.any(String) });
    const unknown = await t.post('/api/auth/login', {
      body: { email: 'nobody@example.com', password: 'Wrong-pass1' },
    });
    expect(unknown.body._tag).toBe('InvalidCredentialsError');
  });

  it('answers every malformed credential with 401 and a JSON body', async () => {
    const u = await t.user('tok');
    for (const header of [
      undefined,
      'Basic abc',
      'Bearer',
      'Bearer short',
      `Bearer ${'x'.repeat(42)}!`,
      `Token ${u.token}`,
    ]) {
      const res = await t.get('/api/auth/me', header ? { headers: { authorization: header } } : {});
      expect(res.status).toBe(401);
      expect(res.body._tag).toBe('UnauthorizedError');
    }
    const random = await t.get('/api/auth/me', { headers: { authorization: `Bearer ${'A'.repeat(43)}` } });
    expect(random.status).toBe(401);
    const lower = await t.get('/api/auth/me', { headers: { authorization: `bearer   ${u.token}` } });
    expect(lower.status).toBe(200);
  });

  it('changes the password and revokes every token', async () => {
    const u = await t.user('pw');
    const second = await t.post('/api/auth/login', { body: { email: u.email, password: PASSWORD } });
    const wrong = await t.post('/api/auth/change-password', {
      token: u.token,
      body: { currentPassword: 'Nope-nope1', newPassword: 'Another-pass2' },
    });
    expect(wrong.body._tag).toBe('ChangePasswordError');
    const same = await t.post('/api/auth/change-password', {
      token: u.token,
      body: { currentPassword: PASSWORD, newPassword: PASSWORD },
    });
    expect(same.body).toMatchObject({
      _tag: 'PasswordWeakError',
      requirements: ['New password must differ from the current password'],
    });
    const ok = await t.post('/api/auth/change-password', {
      token: u.token,
      body: { currentPassword: PASSWORD, newPassword: 'Another-pass2' },
    });
    expect(ok.status).toBe(204);
    expect((await t.get('/api/auth/me', { token: u.token })).status).toBe(401);
    expect((await t.get('/api/auth/me', { token: second.body.token })).status).toBe(401);
    const relog = await t.post('/api/auth/login', { body: { email: u.email, password: 'Another-pass2' } });
    expect(relog.status).toBe(200);
  });
});

describe('request errors', () => {
  it('reports malformed JSON, wrong content types and non-object bodies', async () => {
    const u = await t.user('err');
    const malformed = await t.post('/api/v1/organizations', { token: u.token, body: '{"name": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({
      _tag: 'ValidationError',
      issues: [{ path: '', message: 'Malformed JSON' }],
    });
    const text = await t.post('/api/v1/organizations', {
      token: u.token,
      body: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.body.issues).toEqual([{ path: '', message: 'Content-Type must be application/json' }]);
    const array = await t.post('/api/v1/organizations', { token: u.token, body: [] });
    expect(array.body).toMatchObject({ _tag: 'ValidationError', issues: [{ path: '' }] });
    const charset = await t.post('/api/v1/organizations', {
      token: u.token,
      body: { name: uniq('Org'), reportingCurrency: 'USD' },
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(charset.status).toBe(201);
  });

  it('points validation issues at the offending fields', async () => {
    const u = await t.user('val');
    const res = await t.post('/api/v1/organizations', {
      token: u.token,
      body: { name: '   ', reportingCurrency: 'usd', settings: { fiscalYearEnd: { month: 13, day: 1 } } },
    });
    expect(res.status).toBe(400);
    const paths = res.body.issues.map((i: { path: string }) => i.path).sort();
    expect(paths).toEqual(['/name', '/reportingCurrency', '/settings/fiscalYearEnd/month']);
    const q = await t.get('/api/v1/organizations', { token: u.token, query: { limit: '1e3' } });
    expect(q.body.issues).toEqual([{ path: '/query/limit', message: expect.any(String) }]);
    const big = await t.get('/api/v1/organizations', { token: u.token, query: { limit: 101 } });
    expect(big.body.issues[0].path).toBe('/query/limit');
    const repeated = await t.get('/api/v1/organizations?limit=1&limit=2', { token: u.token });
    expect(repeated.body.issues[0].path).toBe('/query/limit');
    const empty = await t.get('/api/v1/organizations?offset=', { token: u.token });
    expect(empty.body.issues[0].path).toBe('/query/offset');
  });

  it('refuses bodies over 1 MiB with 413 before authentication', async () => {
    const res = await t.post('/api/v1/organizations', { body: { name: 'x'.repeat(1_100_000) } });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ _tag: 'PayloadTooLargeError', maxBytes: 1_048_576 });
  });

  it('answers a malformed path identifier with the resource NotFound tag', async () => {
    const u = await t.user('pid');
    const res = await t.get('/api/v1/organizations/not-a-uuid', { token: u.token });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ _tag: 'OrganizationNotFoundError', organizationId: 'not-a-uuid' });
  });
});

describe('organizations', () => {
  it('creates, lists, reads, updates and deletes an organization', async () => {
    const owner = await t.user('owner');
    const name = uniq('Acme');
    const created = await t.post('/api/v1/organizations', {
      token: owner.token,
      body: { name: `  ${name}  `, reportingCurrency: 'EUR', settings: { requireApproval: false } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name,
      reportingCurrency: 'EUR',
      settings: {
        fiscalYearEnd: { month: 12, day: 31 },
        requireApproval: false,
        enforceSegregationOfDuties: false,
        defaultLocale: 'en-US',
        defaultTimezone: 'UTC',
      },
    });
    const id = created.body.id;

    const dup = await t.post('/api/v1/organizations', {
      token: owner.token,
      body: { name: name.toUpperCase(), reportingCurrency: 'USD' },
    });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ _tag: 'OrganizationNameAlreadyExistsError', name: name.toUpperCase() });

    const list = await t.get('/api/v1/organizations', { token: owner.token });
    expect(list.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
    expect(list.body.organizations[0].id).toBe(id);
    expect(list.body.organizations[0]).toEqual(created.body);

    // Pages of the caller's organizations, ordered by name: the total counts them all, also past the end.
    const pager = await t.user('org-pager');
    const names = ['Charlie', 'alpha', 'Bravo'].map((n) => `${n} ${uniq()}`);
    for (const n of names) await t.org(pager, { name: n });
    const page = (query: Record<string, number>) =>
      t.get('/api/v1/organizations', { token: pager.token, query }).then((r) => r.body);
    const first = await page({ limit: 2 });
    expect(first).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(first.organizations.map((o: { name: string }) => o.name)).toEqual([names[1], names[2]]);
    const second = await page({ limit: 2, offset: 2 });
    expect(second).toMatchObject({ total: 3, offset: 2 });
    expect(second.organizations.map((o: { name: string }) => o.name)).toEqual([names[0]]);
    expect(await page({ offset: 5 })).toEqual({ organizations: [], total: 3, limit: 50, offset: 5 });

    const got = await t.get(`/api/v1/organizations/${id.toUpperCase()}`, { token: owner.token });
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(id);

    const noop = await t.put(`/api/v1/organizations/${id}`, { token: owner.token, body: {} });
    expect(noop.body.updatedAt).toBe(created.body.updatedAt);

    const updated = await t.put(`/api/v1/organizations/${id}`, {
      token: owner.token,
      body: {
        reportingCurrency: 'USD',
        settings: { defaultTimezone: 'Europe/Paris', requireApproval: null },
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.reportingCurrency).toBe('USD');
    expect(updated.body.settings).toMatchObject({ defaultTimezone: 'Europe/Paris', requireApproval: true });

    const badZone = await t.put(`/api/v1/organizations/${id}`, {
      token: owner.token,
      body: { settings: { defaultTimezone: 'Mars/Olympus' } },
    });
    expect(badZone.body.issues).toEqual([{ path: '/settings/defaultTimezone', message: expect.any(String) }]);
    const nullName = await t.put(`/api/v1/organizations/${id}`, { token: owner.token, body: { name: null } });
    expect(nullName.status).toBe(400);

    const del = await t.del(`/api/v1/organizations/${id}`, { token: owner.token });
    expect(del.status).toBe(204);
    const gone = await t.get(`/api/v1/organizations/${id}`, { token: owner.token });
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ _tag: 'OrganizationNotFoundError', organizationId: id });
  });

  it('keeps other organizations invisible and refuses them with 403', async () => {
    const a = await t.user('a');
    const b = await t.user('b');
    const orgA = await t.org(a);
    const read = await t.get(`/api/v1/organizations/${orgA.id}`, { token: b.token });
    expect(read.status).toBe(403);
    expect(read.body).toEqual({
      _tag: 'ForbiddenError',
      message: expect.any(String),
      resource: 'Organization',
      action: 'organization:read',
      requiredRole: 'viewer',
      currentRole: null,
    });
    expect(JSON.stringify(read.body)).not.toContain(orgA.name);
    const list = await t.get('/api/v1/organizations', { token: b.token });
    expect(list.body.total).toBe(0);
    for (const [method, url] of [
      ['PUT', `/api/v1/organizations/${orgA.id}`],
      ['DELETE', `/api/v1/organizations/${orgA.id}`],
      ['GET', `/api/v1/organizations/${orgA.id}/members`],
      ['GET', `/api/v1/audit-log?organizationId=${orgA.id}`],
    ] as const) {
      const res = await t.req(method, url, { token: b.token, ...(method === 'PUT' ? { body: {} } : {}) });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.body.currentRole).toBeNull();
    }
    const missing = await t.get('/api/v1/organizations/00000000-0000-4000-8000-000000000000', {
      token: b.token,
    });
    expect(missing.status).toBe(404);
  });

  it('enforces the role matrix for organizations, members and the audit log', async () => {
    const owner = await t.user('own');
    const org = await t.org(owner);
    const users: Record<string, Awaited<ReturnType<TestContext['user']>>> = {};
    for (const role of ['viewer', 'member', 'admin']) {
      users[role] = await t.user(role);
      await t.addMember(owner, org.id, users[role]!, role);
    }
    const expectations: Array<[string, string, string, unknown, Record<string, number>]> = [
      [
        'GET',
        `/api/v1/organizations/${org.id}`,
        'organization:read',
        undefined,
        { viewer: 200, member: 200, admin: 200 },
      ],
      [
        'PUT',
        `/api/v1/organizations/${org.id}`,
        'organization:update',
        { settings: { defaultLocale: 'de-DE' } },
        { viewer: 403, member: 403, admin: 200 },
      ],
      [
        'PUT',
        `/api/v1/organizations/${org.id}`,
        'organization:manage_controls',
        { settings: { requireApproval: false } },
        { viewer: 403, member: 403, admin: 403 },
      ],
      [
        'DELETE',
        `/api/v1/organizations/${org.id}`,
        'organization:delete',
        undefined,
        { viewer: 403, member: 403, admin: 403 },
      ],
      [
        'GET',
        `/api/v1/organizations/${org.id}/members`,
        'member:read',
        undefined,
        { viewer: 200, member: 200, admin: 200 },
      ],
      [
        'GET',
        `/api/v1/audit-log?organizationId=${org.id}`,
        'audit_log:read',
        undefined,
        { viewer: 403, member: 403, admin: 200 },
      ],
    ];
    for (const [method, url, action, body, byRole] of expectations) {
      for (const [role, status] of Object.entries(byRole)) {
        const res = await t.req(method, url, { token: users[role]!.token, ...(body ? { body } : {}) });
        expect(res.status, `${role} ${method} ${url}`).toBe(status);
        if (status === 403)
          expect(res.body).toMatchObject({ _tag: 'ForbiddenError', action, currentRole: role });
      }
    }
    const ownerControls = await t.put(`/api/v1/organizations/${org.id}`, {
      token: owner.token,
      body: { settings: { requireApproval: false, enforceSegregationOfDuties: true } },
    });
    expect(ownerControls.body.settings).toMatchObject({
      requireApproval: false,
      enforceSegregationOfDuties: true,
    });
  });

  it('manages members with owner protection', async () => {
    const owner = await t.user('o');
    const admin = await t.user('adm');
    const viewer = await t.user('v');
    const org = await t.org(owner);
    await t.addMember(owner, org.id, admin, 'admin');

    const byAdmin = await t.post(`/api/v1/organizations/${org.id}/members`, {
      token: admin.token,
      body: { email: viewer.email.toUpperCase(), role: 'viewer' },
    });
    expect(byAdmin.status).toBe(201);
    expect(byAdmin.body).toMatchObject({
      userId: viewer.id,
      email: viewer.email,
      role: 'viewer',
      organizationId: org.id,
    });

    const ownerByAdmin = await t.post(`/api/v1/organizations/${org.id}/members`, {
      token: admin.token,
      body: { email: (await t.user('z')).email, role: 'owner' },
    });
    expect(ownerByAdmin.body).toMatchObject({ _tag: 'ForbiddenError', action: 'member:manage_owners' });

    const unknown = await t.post(`/api/v1/organizations/${org.id}/members`, {
      token: owner.token,
      body: { email: 'ghost@example.com', role: 'viewer' },
    });
    expect(unknown.body).toMatchObject({ _tag: 'UserNotFoundByEmailError', email: 'ghost@example.com' });
    const again = await t.post(`/api/v1/organizations/${org.id}/members`, {
      token: owner.token,
      body: { email: viewer.email, role: 'member' },
    });
    expect(again.body).toMatchObject({
      _tag: 'UserAlreadyMemberError',
      userId: viewer.id,
      organizationId: org.id,
    });

    const list = await t.get(`/api/v1/organizations/${org.id}/members`, { token: viewer.token });
    expect(list.body.members.map((m: { role: string }) => m.role)).toEqual(['owner', 'admin', 'viewer']);
    const filtered = await t.get(`/api/v1/organizations/${org.id}/members`, {
      token: viewer.token,
      query: { role: 'admin' },
    });
    expect(filtered.body.total).toBe(1);

    const demoteLast = await t.put(`/api/v1/organizations/${org.id}/members/${owner.id}`, {
      token: owner.token,
      body: { role: 'admin' },
    });
    expect(demoteLast.body).toMatchObject({ _tag: 'OwnerCannotBeRemovedError', organizationId: org.id });
    const adminTouchesOwner = await t.put(`/api/v1/organizations/${org.id}/members/${owner.id}`, {
      token: admin.token,
      body: { role: 'viewer' },
    });
    expect(adminTouchesOwner.status).toBe(403);
    const promote = await t.put(`/api/v1/organizations/${org.id}/members/${viewer.id}`, {
      token: admin.token,
      body: { role: 'member' },
    });
    expect(promote.body.role).toBe('member');
    const badId = await t.put(`/api/v1/organizations/${org.id}/members/nope`, {
      token: owner.token,
      body: { role: 'member' },
    });
    expect(badId.body).toMatchObject({
      _tag: 'MembershipNotFoundError',
      userId: 'nope',
      organizationId: org.id,
    });

    const viewerRemovesAdmin = await t.del(`/api/v1/organizations/${org.id}/members/${admin.id}`, {
      token: viewer.token,
    });
    expect(viewerRemovesAdmin.status).toBe(403);
    const leave = await t.del(`/api/v1/organizations/${org.id}/members/${viewer.id}`, {
      token: viewer.token,
    });
    expect(leave.status).toBe(204);
    expect((await t.get(`/api/v1/organizations/${org.id}`, { token: viewer.token })).status).toBe(403);
    const lastOwnerLeaves = await t.del(`/api/v1/organizations/${org.id}/members/${owner.id}`, {
      token: owner.token,
    });
    expect(lastOwnerLeaves.body._tag).toBe('OwnerCannotBeRemovedError');

    const audit = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: org.id, entityType: 'Membership' },
    });
    expect(audit.status).toBe(200);
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining(['AddMember', 'UpdateMember', 'RemoveMember']),
    );
    const removal = audit.body.entries.find((e: { action: string }) => e.action === 'RemoveMember');
    expect(removal).toMatchObject({ userId: viewer.id, entityId: viewer.id });
  });

  it('records audit entries for organization changes with field diffs', async () => {
    const owner = await t.user('aud');
    const org = await t.org(owner);
    await t.put(`/api/v1/organizations/${org.id}`, {
      token: owner.token,
      body: { reportingCurrency: 'JPY' },
    });
    const res = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: org.id, entityType: 'Organization' },
    });
    expect(res.body.entries[0]).toMatchObject({
      action: 'Update',
      entityId: org.id,
      userId: owner.id,
      changes: { reportingCurrency: { from: 'USD', to: 'JPY' } },
    });
    expect(res.body.entries[1]).toMatchObject({ action: 'Create', changes: null });
    const bad = await t.get('/api/v1/audit-log', {
      token: owner.token,
      query: { organizationId: org.id, fromDate: '2026-02-01', toDate: '2026-01-01' },
    });
    expect(bad.status).toBe(400);
  });
});

describe('idempotency', () => {
  it('replays the stored response and refuses a reused key with another body', async () => {
    const u = await t.user('idem');
    const key = uniq('key');
    const body = { name: uniq('Idem'), reportingCurrency: 'USD' };
    const first = await t.post('/api/v1/organizations', {
      token: u.token,
      body,
      headers: { 'idempotency-key': key },
    });
    expect(first.status).toBe(201);
    const second = await t.post('/api/v1/organizations', {
      token: u.token,
      body,
      headers: { 'idempotency-key': key },
    });
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
    expect((await t.get('/api/v1/organizations', { token: u.token })).body.total).toBe(1);
    const other = await t.post('/api/v1/organizations', {
      token: u.token,
      body: { ...body, name: uniq('Other') },
      headers: { 'idempotency-key': key },
    });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ _tag: 'IdempotencyKeyReusedError', idempotencyKey: key });
    const bad = await t.post('/api/v1/organizations', {
      token: u.token,
      body,
      headers: { 'idempotency-key': 'a b' },
    });
    expect(bad.body.issues).toEqual([{ path: '/headers/Idempotency-Key', message: expect.any(String) }]);
  });
});
