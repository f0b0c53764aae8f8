import { afterAll, describe, expect, it } from 'vitest';
import { mailRateRules } from '../src/services/mail-throttle.ts';
import { loadConfig } from '../src/config.ts';
import { startTestApp, type TestApp } from './support/test-app.ts';

/**
 * Issue 20, item 12: behind a reverse proxy the client's address (which every per-address limit counts)
 * comes from X-Forwarded-For, but only from the entries the trusted proxies wrote: with TRUST_PROXY=true
 * any client picked its own address by sending one, and escaped every per-address limit.
 */
describe('the client address behind reverse proxies (TRUST_PROXY)', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
  });

  it('takes a hop count or a list of proxies, and refuses anything else by name', () => {
    const trustOf = (value: string) => loadConfig({ TRUST_PROXY: value }).trustProxy;
    expect(trustOf('false')).toBe(false);
    expect(trustOf('true')).toBe(1);
    expect(trustOf('2')).toBe(2);
    expect(trustOf('10.0.0.5, 10.0.0.0/8, ::1, loopback')).toEqual(['10.0.0.5', '10.0.0.0/8', '::1', 'loopback']);
    expect(loadConfig({}).trustProxy).toBe(false);
    for (const wrong of ['yes', '10.0.0.0/33', 'proxy.example.org', '10.0.0.5,'])
      expect(() => trustOf(wrong), wrong).toThrow(/TRUST_PROXY takes false, the number of proxies/);
  });

  /**
   * Asks for one more reset link than one client address may (each to another recipient), every request
   * from `remoteAddress` with the X-Forwarded-For `forwardedFor(index)`: the answers' statuses.
   */
  async function resetLinksAsked(test: TestApp, remoteAddress: string, forwardedFor: (index: number) => string) {
    const statuses: number[] = [];
    for (let index = 0; index <= mailRateRules.reset.perClientAddress.limit; index++) {
      const answer = await test.call({
        method: 'POST',
        url: '/api/reset-password/',
        payload: { email: `person${index}@${remoteAddress}.example` },
        headers: { 'x-forwarded-for': forwardedFor(index) },
        remoteAddress,
      });
      statuses.push(answer.statusCode);
    }
    return statuses;
  }
  const limit = mailRateRules.reset.perClientAddress.limit;
  const heldBackAtLast = [...Array<number>(limit).fill(200), 429];
  const neverHeldBack = Array<number>(limit + 1).fill(200);

  it('believes only the entry the one proxy in front added when TRUST_PROXY=true, whatever a client wrote before it', async () => {
    const test = await startTestApp('pglite', { TRUST_PROXY: 'true' });
    apps.push(test);
    // One client, writing a new address of its own before the one the proxy adds, each time.
    expect(await resetLinksAsked(test, '127.0.0.1', (index) => `198.51.100.${index}, 203.0.113.7`)).toEqual(
      heldBackAtLast,
    );
    // Another client behind the same proxy has its own allowance.
    expect(await resetLinksAsked(test, '127.0.0.1', () => '203.0.113.8')).toEqual(heldBackAtLast);
  });

  it('believes X-Forwarded-For from the listed proxies only', async () => {
    const test = await startTestApp('pglite', { TRUST_PROXY: '127.0.0.1, 10.1.0.0/16' });
    apps.push(test);
    // Through two listed proxies: the first address no listed proxy has is the client's.
    expect(await resetLinksAsked(test, '127.0.0.1', (index) => `198.51.100.${index}, 203.0.113.9, 10.1.2.3`)).toEqual(
      heldBackAtLast,
    );
    // A client connecting directly (not a listed proxy) is its own address, whatever it writes.
    expect(await resetLinksAsked(test, '198.51.100.50', (index) => `203.0.113.${index}`)).toEqual(heldBackAtLast);
    // Different clients behind a listed proxy are told apart.
    expect(await resetLinksAsked(test, '10.1.0.1', (index) => `192.0.2.${index}`)).toEqual(neverHeldBack);
  });
});
