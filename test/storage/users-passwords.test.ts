// Password hashes and the sign-in policy's pure parts: stored parameters that are damaged or ask
// for too much memory are refused without running scrypt, old parameters are marked for a
// rehash, redirect targets are local paths only, and the limiter counts before it answers.
import { describe, expect, it } from 'vitest';
import { hashPassword, needsRehash, SCRYPT, verifyPassword } from '../../extensions/catalog/users.js';
import { safeNext, SignInLimiter } from '../../frontends/web/signin-policy.js';

describe('password hashes', () => {
  it('verifies a fresh hash, made with the current parameters', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash.startsWith(`scrypt$${SCRYPT.N}$8$1$`)).toBe(true);
    expect(needsRehash(hash)).toBe(false);
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('wrong horse', hash)).toBe(false);
  }, 30_000);

  it('refuses damaged or greedy stored parameters without an error, and marks old ones for a rehash', async () => {
    const salt = Buffer.alloc(16).toString('base64url');
    const hash = Buffer.alloc(32).toString('base64url');
    for (const stored of [
      `scrypt$3$8$1$${salt}$${hash}`,
      `scrypt$${2 ** 22}$8$1$${salt}$${hash}`,
      `scrypt$16384$64$1$${salt}$${hash}`,
      'bcrypt$x',
      '',
      `scrypt$16384$8$1$${salt}$`,
    ])
      expect(await verifyPassword('x', stored), stored).toBe(false);
    expect(needsRehash(`scrypt$16384$8$1$${salt}$${hash}`)).toBe(true);
  });
});

describe('safeNext', () => {
  it('keeps local paths and sends everything else to /', () => {
    for (const ok of ['/', '/issues', '/issues?status=resolved&sort=count', '/%09/x', '/issues/abc#frag']) expect(safeNext(ok), ok).toBe(ok);
    for (const bad of [
      '',
      null,
      undefined,
      '//evil.example',
      '/\\evil.example',
      '\\\\evil',
      '/\t/evil.example',
      '/\r\nSet-Cookie:x',
      'https://evil.example',
      'javascript:alert(1)',
      '/\u00e9',
      '/a b',
      `/${'a'.repeat(2048)}`,
    ])
      expect(safeNext(bad), String(bad)).toBe('/');
  });
});

describe('SignInLimiter', () => {
  it('counts an attempt when it begins: past the pair limit the next waits, another address does not', () => {
    const limiter = new SignInLimiter({ perAccountAddress: 2, perAccount: 3, perAddress: 10, windowMs: 60_000, maxTracked: 1000 });
    const now = 1_000_000;
    expect(limiter.begin('a@x', '1.1.1.1', now)).toBe(0);
    expect(limiter.begin('a@x', '1.1.1.1', now)).toBe(0);
    expect(limiter.begin('a@x', '1.1.1.1', now)).toBe(60);
    expect(limiter.begin('a@x', '2.2.2.2', now)).toBe(0);
    // The account's own limit, over all addresses.
    expect(limiter.begin('a@x', '3.3.3.3', now)).toBeGreaterThan(0);
    // The window passes.
    expect(limiter.begin('a@x', '1.1.1.1', now + 60_000)).toBe(0);
  });

  it('forgets the account after a right password', () => {
    const limiter = new SignInLimiter({ perAccountAddress: 2, perAccount: 5, perAddress: 10, windowMs: 60_000, maxTracked: 1000 });
    limiter.begin('b@x', '1.1.1.1', 1);
    limiter.begin('b@x', '1.1.1.1', 2);
    limiter.succeeded('b@x', '1.1.1.1', 2);
    expect(limiter.begin('b@x', '1.1.1.1', 3)).toBe(0);
  });

  it('keeps counting an account under attack while a flood of new names fills it', () => {
    const limiter = new SignInLimiter({ perAccountAddress: 3, perAccount: 100, perAddress: 1_000_000, windowMs: 60_000, maxTracked: 300 });
    limiter.begin('victim@x', '6.6.6.6', 1);
    limiter.begin('victim@x', '6.6.6.6', 2);
    for (let i = 0; i < 1000; i++) {
      limiter.begin(`spray-${i}@x`, '7.7.7.7', 3);
      if (i % 50 === 0) limiter.begin('victim@x', '6.6.6.6', 4); // the attack goes on, so its count stays recent
    }
    expect(limiter.begin('victim@x', '6.6.6.6', 5)).toBeGreaterThan(0);
  });
});
