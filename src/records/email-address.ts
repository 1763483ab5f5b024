// Email addresses as rules and settings take them: a plain `local@domain` (no display name, no
// quoting), checked without a backtracking pattern: the length is capped first, then each part is
// matched by one character class.
export const MAX_EMAIL_LENGTH = 254;
const LOCAL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}$/;
const LABEL = /^[A-Za-z0-9-]{1,63}$/;

export function isEmailAddress(text: unknown): text is string {
  if (typeof text !== 'string' || text.length > MAX_EMAIL_LENGTH) return false;
  const at = text.lastIndexOf('@');
  if (at <= 0) return false;
  const local = text.slice(0, at);
  const labels = text.slice(at + 1).split('.');
  if (!LOCAL.test(local) || local.startsWith('.') || local.endsWith('.') || local.includes('..')) return false;
  return labels.length >= 2 && labels.every((label) => LABEL.test(label) && !label.startsWith('-') && !label.endsWith('-'));
}
