/**
 * The interactive API reference (`/api/docs`) in a real browser: the real server is started as a child
 * process (`src/main.ts`, in-memory PGlite, a free loopback port) and driven with headless Debian
 * Chromium through playwright-core. Checks that the page renders every endpoint group of the OpenAPI
 * document, that "Try it out" → "Execute" on `GET /api/health` shows the 200 response, that every
 * request the page makes stays on the service (no CDN) and that the browser reports no errors (for
 * example a Content-Security-Policy violation).
 *
 * Without /usr/bin/chromium the test is skipped (see chromium.ts). Set DOCS_SCREENSHOT=<file.png> to
 * keep a screenshot of the page.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, freePort, hasChromium, keepRequestsLocal, launchBrowser } from './chromium.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

async function waitForHealth(base: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output()}`);
    try {
      const res = await fetch(`${base}/api/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`server did not become healthy:\n${output()}`);
}

describe.skipIf(!hasChromium)('API reference page in Chromium', () => {
  let server: ChildProcess;
  let serverOutput = '';
  let base = '';
  let browser: Browser;
  let page: Page;
  const foreignRequests: string[] = [];
  const browserErrors: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATA_DIR: 'memory://',
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout?.on('data', (d) => {
      serverOutput += String(d);
    });
    server.stderr?.on('data', (d) => {
      serverOutput += String(d);
    });
    await waitForHealth(base, server, () => serverOutput);

    browser = await launchBrowser();
    // Everything the page loads must come from the service itself.
    await keepRequestsLocal(browser.context, base, foreignRequests);
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('console', (msg) => {
      if (msg.type() === 'error') browserErrors.push(msg.text());
    });
    page.on('pageerror', (err) => browserErrors.push(err.message));
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (server.exitCode === null) server.kill('SIGKILL');
    }
  }, 30_000);

  it('serves the page and its assets from the service (no CDN)', async () => {
    const res = await fetch(`${base}/api/docs`, { redirect: 'follow' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs)
      expect(ref.startsWith('/') || !/^[a-z]+:/i.test(ref) || ref.startsWith('data:')).toBe(true);
    const init = await (await fetch(`${base}/api/docs/static/swagger-initializer.js`)).text();
    expect(init).toContain('validatorUrl: null'); // no call to validator.swagger.io
  });

  it('renders every endpoint group of the OpenAPI document', async () => {
    const doc = (await (await fetch(`${base}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    const tags = new Set<string>();
    for (const ops of Object.values(doc.paths))
      for (const op of Object.values(ops)) for (const t of op.tags ?? []) tags.add(t);
    expect(tags.size).toBeGreaterThan(5);

    await page.goto(`${base}/api/docs`, { waitUntil: 'load' });
    await page.locator('.opblock-tag').first().waitFor({ timeout: 30_000 });
    await expect.poll(() => page.locator('.opblock-tag').count(), { timeout: 60_000 }).toBe(tags.size);
    const rendered = await page
      .locator('.opblock-tag')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-tag')));
    expect(new Set(rendered)).toEqual(tags);
    await expect.poll(() => page.title()).toContain('Groupbook');
    expect(await page.locator('.info .title').textContent()).toContain('Groupbook API');
  }, 120_000);

  it('"Try it out" → Execute on GET /api/health shows the 200 response', async () => {
    // Endpoint groups start collapsed (the reference lists ~150 operations): open the Health group.
    await page.locator('.opblock-tag[data-tag="Health"]').click();
    const op = page.locator('.opblock', {
      has: page.locator('.opblock-summary-path[data-path="/api/health"]'),
    });
    await op.locator('.opblock-summary').first().click();
    await op.locator('button.try-out__btn').click();
    await op.locator('button.execute').click();
    const live = op.locator('.live-responses-table');
    await live.waitFor({ timeout: 15_000 });
    await expect
      .poll(() => live.locator('tbody .response-col_status').first().textContent(), { timeout: 15_000 })
      .toContain('200');
    const body = await live.locator('tbody .response-col_description').first().textContent();
    expect(body).toContain('"status": "ok"');
    expect(body).toContain('"database": "ok"');
    await live.scrollIntoViewIfNeeded();
    if (process.env.DOCS_SCREENSHOT)
      await page.screenshot({ path: process.env.DOCS_SCREENSHOT, fullPage: false });
  }, 60_000);

  it('made no request outside the service and logged no browser error', () => {
    expect(foreignRequests).toEqual([]);
    expect(browserErrors).toEqual([]);
  });
});
