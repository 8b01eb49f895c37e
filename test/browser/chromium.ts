/**
 * Shared by the browser tests: Debian's Chromium driven through playwright-core (no browser is ever
 * downloaded). Without /usr/bin/chromium the tests are skipped with a message, so `npm test` passes
 * on a machine without a browser; CI installs Chromium and sets GROUPBOOK_REQUIRE_BROWSER=1, which
 * turns the skip into a failure. CHROMIUM_PATH points at another Chromium binary.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

if (!hasChromium) {
  const missing = `${CHROMIUM} not found (install it with: apt-get install -y chromium)`;
  if (process.env.GROUPBOOK_REQUIRE_BROWSER === '1') throw new Error(`browser test cannot run: ${missing}`);
  console.warn(`browser test skipped: ${missing}`);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A headless Chromium with a throwaway profile. */
export async function launchBrowser(viewport = { width: 1280, height: 900 }): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'groupbook-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport,
  });
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Aborts and records every request that leaves `base` (data: and blob: URLs are local). */
export async function keepRequestsLocal(
  context: BrowserContext,
  base: string,
  foreign: string[],
): Promise<void> {
  const host = new URL(base).host;
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || url.protocol === 'blob:' || url.host === host) return route.continue();
    foreign.push(url.href);
    return route.abort();
  });
}
