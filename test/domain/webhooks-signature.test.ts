/**
 * The service signs deliveries with Node's HMAC; the reference implementation of Standard Webhooks
 * must compute the same header and accept it.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signingKey, webhookSignature } from '../../src/domain/webhooks.ts';

describe('webhook signature', () => {
  const bodies = [
    '{}',
    JSON.stringify({
      id: '0193a1b2-0000-7000-8000-000000000001',
      type: 'JournalEntryCreated',
      data: { x: 1 },
    }),
    JSON.stringify({ description: 'Überweisung — 配当 🧾', amount: '125.50' }),
    '',
  ];

  it('equals the reference implementation and verifies with it', () => {
    for (let i = 0; i < 20; i++) {
      const secret = `whsec_${randomBytes(32).toString('base64')}`;
      const reference = new Webhook(secret);
      const key = signingKey(secret);
      for (const body of bodies) {
        const id = `msg_${i}`;
        const at = new Date(1_764_000_000_000 + i * 1_234);
        const seconds = Math.floor(at.getTime() / 1000);
        const signature = webhookSignature(key, id, seconds, body);
        expect(signature).toBe(reference.sign(id, at, body));
        if (body !== '') {
          const headers = {
            'webhook-id': id,
            'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
            'webhook-signature': webhookSignature(key, id, Math.floor(Date.now() / 1000), body),
          };
          expect(reference.verify(body, headers)).toEqual(JSON.parse(body));
        }
      }
    }
  });

  it('refuses an empty secret', () => {
    expect(() => signingKey('whsec_')).toThrow();
  });
});
