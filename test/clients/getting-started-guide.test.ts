/**
 * docs/getting-started.md as written: its shell blocks (all but the ones that install or start the
 * service) run in bash against a live in-process server — twice in a row, as two different users with
 * two organizations — and print the figures the guide shows. A step that fails stops the guide with
 * its status and error body, before any later step runs.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/app.ts';

let t: TestContext;
let api: string;
const guide = readFileSync(new URL('../../docs/getting-started.md', import.meta.url), 'utf8');
const blocks = [...guide.matchAll(/```sh\n([\s\S]*?)```/g)]
  .map((m) => m[1]!)
  .filter((code) => !/\bnpm (install|start|run)\b/.test(code));
/** The output the guide shows for the consolidated balance sheet (section 7). */
const shown = /This prints\n\n```\n([\s\S]*?)```/.exec(guide)![1]!.trim();

/** Runs the commands of every block, one after the other in one shell, as a reader pastes them. */
function runGuide(
  env: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  // Asynchronously: the server answering the guide runs in this process.
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', blocks.join('\n')], { env: { ...process.env, API: api, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

beforeAll(async () => {
  t = await createTestContext();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  api = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api`;
});
afterAll(async () => t?.close());

describe('getting-started guide', () => {
  it('has the blocks of every step', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    expect(blocks[0]).toContain('set -eo pipefail');
  });

  it('runs twice in a row, with different users, without an error, and prints what it shows', async () => {
    for (const run of [1, 2]) {
      const res = await runGuide();
      expect(res.status, `run ${run}: ${res.stderr}`).toBe(0);
      expect(res.stderr).toBe('');
      expect(res.stdout).toContain(shown);
      expect(res.stdout.match(/^Posted$/gm)).toHaveLength(4);
    }
  }, 240_000);

  it('stops at the first failing step with its status and error body', async () => {
    const first = await runGuide({ SUFFIX: 'repeat' });
    expect(first.status, first.stderr).toBe(0);
    const again = await runGuide({ SUFFIX: 'repeat' }); // the same e-mail: registration answers 409
    expect(again.status).not.toBe(0);
    expect(again.stderr).toMatch(/POST \/auth\/register → 409 \{"_tag":"UserExistsError"/);
    expect(again.stdout).not.toContain('organization ');
  }, 240_000);
});
