// Opaque keyset cursors: the (timestamp, id) of the last row of a page, base64url-encoded.
export interface Cursor {
  micros: bigint;
  id: string;
}

export class InvalidCursorError extends Error {
  constructor() {
    super('the cursor is not one this service issued');
    this.name = 'InvalidCursorError';
  }
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.micros.toString(), cursor.id])).toString('base64url');
}

export function decodeCursor(text: string): Cursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && /^-?\d{1,20}$/.test(String(parsed[0])) && typeof parsed[1] === 'string')
      return { micros: BigInt(parsed[0]), id: parsed[1] };
  } catch {
    // fall through
  }
  throw new InvalidCursorError();
}
