// The web app's people and their sessions, in catalog tables (migration 10). Passwords are hashed
// with scrypt (node:crypto); a session is a random token handed to the browser in a cookie, stored
// here only as its SHA-256, so a copy of the database does not sign anyone in, and revoking a
// row (sign-out) ends the session at once.
import { createHash, randomBytes, randomUUID, scrypt, timingSafeEqual } from 'node:crypto';
import type { Dataset } from '../../src/engine/item.js';
import { CatalogError } from './catalog.js';
import type { Database } from '../duckdb/database.js';
import { rows } from '../duckdb/rows.js';

export type Role = 'admin' | 'member';
export const ROLES: readonly Role[] = ['admin', 'member'];

export interface User {
  id: string;
  org_id: string;
  email: string;
  role: Role;
  created_at: string;
}

/** A user as the users list shows them: disabled ones too. */
export type UserListing = User & { disabled_at: string | null };

/** What a one-time sign-in link is for: a new user's first password, or a reset one. */
export type LinkPurpose = 'invite' | 'reset';
/** How long a sign-in link stays usable. */
export const LINK_HOURS = 72;

export interface Session {
  user: User;
  csrf: string;
  dataset: Dataset;
  expires_at: string;
}

/** OWASP's scrypt parameters (N=2^17, r=8, p=1): 128 MiB and about a second of one core per hash. */
export const SCRYPT = { N: 2 ** 17, r: 8, p: 1, keylen: 32 };
const SESSION_DAYS = 14;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
/** Hashes at once: each holds 128·N·r bytes, so parallel sign-ins cannot take the memory with them. */
const MAX_CONCURRENT_HASHES = 2;
/** The most memory a stored hash's parameters may ask for (a damaged row must not take gigabytes). */
const MAX_HASH_MEMORY = 256 * 1024 * 1024;

type ScryptParams = typeof SCRYPT;

let running = 0;
const waiting: Array<() => void> = [];

/** A hashing slot: taken at once while fewer than the most run, else handed over by one that ends. */
async function takeSlot(): Promise<void> {
  if (running < MAX_CONCURRENT_HASHES) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
}

function giveSlot(): void {
  const next = waiting.shift();
  if (next) next();
  else running--;
}

async function scryptAsync(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  await takeSlot();
  try {
    return await new Promise((resolve, reject) =>
      // Node refuses more than maxmem (32 MiB by default); scrypt needs 128·N·r bytes and a little more.
      scrypt(password, salt, params.keylen, { N: params.N, r: params.r, p: params.p, maxmem: 2 * 128 * params.N * params.r }, (error, key) =>
        error ? reject(error) : resolve(key),
      ),
    );
  } finally {
    giveSlot();
  }
}

/** `scrypt$N$r$p$salt$hash` (base64url): the parameters travel with the hash, so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

function parseHash(stored: string): { params: ScryptParams; salt: Buffer; hash: Buffer } | undefined {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  const params = { N: Number(n), r: Number(r), p: Number(p), keylen: 0 };
  if (scheme !== 'scrypt' || !salt || !hash) return undefined;
  if (![params.N, params.r, params.p].every((v) => Number.isSafeInteger(v) && v > 0) || params.p > 16) return undefined;
  if (params.N < 2 || (params.N & (params.N - 1)) !== 0 || 128 * params.N * params.r > MAX_HASH_MEMORY) return undefined;
  const expected = Buffer.from(hash, 'base64url');
  return { params: { ...params, keylen: expected.length }, salt: Buffer.from(salt, 'base64url'), hash: expected };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed || parsed.hash.length === 0) return false;
  const key = await scryptAsync(password, parsed.salt, parsed.params);
  return timingSafeEqual(key, parsed.hash);
}

/** Whether a stored hash was made with other parameters than today's (it is replaced at the next sign-in). */
export function needsRehash(stored: string): boolean {
  const parsed = parseHash(stored);
  return !parsed || parsed.params.N !== SCRYPT.N || parsed.params.r !== SCRYPT.r || parsed.params.p !== SCRYPT.p || parsed.hash.length !== SCRYPT.keylen;
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

  /** Every user, disabled ones too (with when). */
  async list(): Promise<UserListing[]> {
    const result = await this.db.reader().runAndReadAll('SELECT id, org_id, email, role, created_at, disabled_at FROM web_users ORDER BY created_at, id');
    return rows<UserListing>(result);
  }

  /** A user by id or email. */
  async find(ref: string): Promise<UserListing | undefined> {
    const result = await this.db
      .reader()
      .runAndReadAll('SELECT id, org_id, email, role, created_at, disabled_at FROM web_users WHERE id = ? OR email = ?', [ref, normalizeEmail(ref)]);
    return rows<UserListing>(result)[0];
  }

  private async need(ref: string): Promise<UserListing> {
    const user = await this.find(ref);
    if (!user) throw new CatalogError('not_found', `no user ${ref}`);
    return user;
  }

  /** Refuses to take away the organization's last enabled admin: nobody could manage users after it. */
  private async keepAnAdmin(user: UserListing, doing: string): Promise<void> {
    if (user.role !== 'admin' || user.disabled_at !== null) return;
    const result = await this.db
      .reader()
      .runAndReadAll("SELECT count(*)::INTEGER AS n FROM web_users WHERE org_id = ? AND role = 'admin' AND disabled_at IS NULL AND id <> ?", [
        user.org_id,
        user.id,
      ]);
    if (rows<{ n: number }>(result)[0].n === 0)
      throw new CatalogError('conflict', `${user.email} is the last enabled admin: ${doing} would leave nobody to manage users`);
  }

  /** Disables the user and ends every session and sign-in link of theirs, in one transaction. */
  async disable(ref: string): Promise<UserListing> {
    const user = await this.need(ref);
    if (user.disabled_at !== null) throw new CatalogError('conflict', `${user.email} is disabled already`);
    await this.keepAnAdmin(user, 'disabling them');
    await this.db.write(async (c) => {
      await c.run('UPDATE web_users SET disabled_at = now() WHERE id = ?', [user.id]);
      await c.run('UPDATE web_sessions SET revoked_at = now() WHERE user_id = ? AND revoked_at IS NULL', [user.id]);
      await c.run('DELETE FROM web_signin_links WHERE user_id = ?', [user.id]);
    });
    return this.need(user.id);
  }

  async enable(ref: string): Promise<UserListing> {
    const user = await this.need(ref);
    if (user.disabled_at === null) throw new CatalogError('conflict', `${user.email} is enabled already`);
    await this.db.write((c) => c.run('UPDATE web_users SET disabled_at = NULL WHERE id = ?', [user.id]));
    return this.need(user.id);
  }

  /** Removes the user with their sessions and sign-in links. */
  async delete(ref: string): Promise<UserListing> {
    const user = await this.need(ref);
    await this.keepAnAdmin(user, 'deleting them');
    await this.db.write(async (c) => {
      await c.run('DELETE FROM web_sessions WHERE user_id = ?', [user.id]);
      await c.run('DELETE FROM web_signin_links WHERE user_id = ?', [user.id]);
      await c.run('DELETE FROM web_users WHERE id = ?', [user.id]);
    });
    return user;
  }

  /** A new password (hashed by the caller); every session and sign-in link of the user ends. */
  async setPassword(ref: string, passwordHash: string): Promise<UserListing> {
    if (!passwordHash.startsWith('scrypt$')) throw new CatalogError('invalid', 'the password hash is not an scrypt hash');
    const user = await this.need(ref);
    await this.db.write(async (c) => {
      await c.run('UPDATE web_users SET password_hash = ? WHERE id = ?', [passwordHash, user.id]);
      await c.run('UPDATE web_sessions SET revoked_at = now() WHERE user_id = ? AND revoked_at IS NULL', [user.id]);
      await c.run('DELETE FROM web_signin_links WHERE user_id = ?', [user.id]);
    });
    return user;
  }

  /** The same password, hashed with today's parameters (after a sign-in with older ones); sessions stay. */
  async rehash(userId: string, passwordHash: string): Promise<void> {
    await this.db.write((c) => c.run('UPDATE web_users SET password_hash = ? WHERE id = ?', [passwordHash, userId]));
  }

  /** A one-time link's token (shown once; only its hash is kept) that lets the user choose a password. */
  async createLink(userId: string, purpose: LinkPurpose): Promise<{ token: string; expires: Date }> {
    const token = randomBytes(32).toString('base64url');
    const expires = new Date(Date.now() + LINK_HOURS * 3600 * 1000);
    await this.db.write((c) =>
      c.run('INSERT INTO web_signin_links VALUES (?, ?, ?, now(), ?, NULL)', [tokenHash(token), userId, purpose, expires.toISOString()]),
    );
    return { token, expires };
  }

  /** The enabled user an unused, unexpired link belongs to. */
  async linkUser(token: string): Promise<(User & { purpose: LinkPurpose }) | undefined> {
    const result = await this.db.reader().runAndReadAll(
      `SELECT u.id, u.org_id, u.email, u.role, u.created_at, l.purpose
         FROM web_signin_links l JOIN web_users u ON u.id = l.user_id
        WHERE l.token_hash = ? AND l.used_at IS NULL AND l.expires_at > now() AND u.disabled_at IS NULL`,
      [tokenHash(token)],
    );
    return rows<User & { purpose: LinkPurpose }>(result)[0];
  }

  /**
   * Uses the link once: sets the password and ends the user's other sessions. False when the link
   * was used (or expired) meanwhile, so two submissions of one link cannot both succeed.
   */
  async useLink(token: string, passwordHash: string): Promise<User | undefined> {
    return this.db.write(async (c) => {
      const used = await c.runAndReadAll(
        `UPDATE web_signin_links SET used_at = now() WHERE token_hash = ? AND used_at IS NULL AND expires_at > now() RETURNING user_id`,
        [tokenHash(token)],
      );
      const userId = rows<{ user_id: string }>(used)[0]?.user_id;
      if (!userId) return undefined;
      const found = await c.runAndReadAll('SELECT id, org_id, email, role, created_at FROM web_users WHERE id = ? AND disabled_at IS NULL', [userId]);
      const user = rows<User>(found)[0];
      if (!user) return undefined;
      await c.run('UPDATE web_users SET password_hash = ? WHERE id = ?', [passwordHash, userId]);
      await c.run('UPDATE web_sessions SET revoked_at = now() WHERE user_id = ? AND revoked_at IS NULL', [userId]);
      return user;
    });
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
