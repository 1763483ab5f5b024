// The web app's people and their sessions, in catalog tables (migration 10). Passwords are hashed
// with scrypt (node:crypto); a session is a random token handed to the browser in a cookie, stored
// here only as its SHA-256, so a copy of the database does not sign anyone in, and revoking a
// row (sign-out) ends the session at once.
import { createHash, randomBytes, randomUUID, scrypt, timingSafeEqual } from 'node:crypto';
import type { Dataset } from '../engine/item.js';
import { CatalogError } from './catalog.js';
import type { Database } from './database.js';
import { rows } from './rows.js';

export type Role = 'admin' | 'member';
export const ROLES: readonly Role[] = ['admin', 'member'];

export interface User {
  id: string;
  org_id: string;
  email: string;
  role: Role;
  created_at: string;
}

export interface Session {
  user: User;
  csrf: string;
  dataset: Dataset;
  expires_at: string;
}

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 };
const SESSION_DAYS = 14;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

function scryptAsync(password: string, salt: Buffer, params: typeof SCRYPT): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, params.keylen, { N: params.N, r: params.r, p: params.p, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** `scrypt$N$r$p$salt$hash` (base64url): the parameters travel with the hash, so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scryptAsync(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p), keylen: expected.length });
  return timingSafeEqual(key, expected);
}

/** A password for a user created without one: 20 characters of base64url (120 bits). */
export function generatePassword(): string {
  return randomBytes(15).toString('base64url');
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

export class Users {
  constructor(private readonly db: Database) {}

  async create(input: { email: string; role: Role; passwordHash: string; orgId: string }): Promise<User> {
    const email = normalizeEmail(input.email);
    if (!EMAIL.test(email)) throw new CatalogError('invalid', `${input.email} is not an email address`);
    if (!ROLES.includes(input.role)) throw new CatalogError('invalid', `the role is admin or member, not ${input.role}`);
    if (!input.passwordHash.startsWith('scrypt$')) throw new CatalogError('invalid', 'the password hash is not an scrypt hash');
    if (await this.byEmail(email)) throw new CatalogError('conflict', `a user ${email} exists already`);
    const user: User = {
      id: `usr_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
      org_id: input.orgId,
      email,
      role: input.role,
      created_at: new Date().toISOString(),
    };
    await this.db.write(async (c) => {
      await c.run('INSERT INTO web_users VALUES (?, ?, ?, ?, ?, ?, NULL)', [user.id, user.org_id, user.email, user.role, input.passwordHash, user.created_at]);
    });
    return user;
  }

  async list(): Promise<User[]> {
    const result = await this.db
      .reader()
      .runAndReadAll('SELECT id, org_id, email, role, created_at FROM web_users WHERE disabled_at IS NULL ORDER BY created_at');
    return rows<User>(result);
  }

  /** The user and their password hash, for sign-in. */
  async byEmail(email: string): Promise<(User & { password_hash: string }) | undefined> {
    const result = await this.db
      .reader()
      .runAndReadAll('SELECT id, org_id, email, role, created_at, password_hash FROM web_users WHERE email = ? AND disabled_at IS NULL', [
        normalizeEmail(email),
      ]);
    return rows<User & { password_hash: string }>(result)[0];
  }

  /** A new session: the token for the cookie (shown once; only its hash is kept). */
  async startSession(userId: string, dataset: Dataset = 'live'): Promise<{ token: string; expires: Date }> {
    const token = randomBytes(32).toString('base64url');
    const expires = new Date(Date.now() + SESSION_DAYS * 24 * 3600 * 1000);
    await this.db.write(async (c) => {
      await c.run('INSERT INTO web_sessions VALUES (?, ?, ?, ?, now(), ?, NULL)', [
        tokenHash(token),
        userId,
        randomBytes(24).toString('base64url'),
        dataset,
        expires.toISOString(),
      ]);
    });
    return { token, expires };
  }

  async session(token: string): Promise<Session | undefined> {
    const result = await this.db.reader().runAndReadAll(
      `SELECT u.id, u.org_id, u.email, u.role, u.created_at, s.csrf, s.dataset, s.expires_at
         FROM web_sessions s JOIN web_users u ON u.id = s.user_id
        WHERE s.token_hash = ? AND s.revoked_at IS NULL AND s.expires_at > now() AND u.disabled_at IS NULL`,
      [tokenHash(token)],
    );
    const row = rows<User & { csrf: string; dataset: Dataset; expires_at: string }>(result)[0];
    if (!row) return undefined;
    const { csrf, dataset, expires_at, ...user } = row;
    return { user, csrf, dataset, expires_at };
  }

  async endSession(token: string): Promise<void> {
    await this.db.write(async (c) => {
      await c.run('UPDATE web_sessions SET revoked_at = now() WHERE token_hash = ? AND revoked_at IS NULL', [tokenHash(token)]);
    });
  }

  /** Ends every session of a user (a changed password, a removed account). */
  async endSessionsOf(userId: string): Promise<void> {
    await this.db.write(async (c) => {
      await c.run('UPDATE web_sessions SET revoked_at = now() WHERE user_id = ? AND revoked_at IS NULL', [userId]);
    });
  }

  async setDataset(token: string, dataset: Dataset): Promise<void> {
    await this.db.write(async (c) => {
      await c.run('UPDATE web_sessions SET dataset = ? WHERE token_hash = ?', [dataset, tokenHash(token)]);
    });
  }
}
