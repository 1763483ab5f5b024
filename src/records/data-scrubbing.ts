// A project's data-scrubbing settings (`data_scrubbing`, set with PATCH /v1/projects/{id}) and the
// `scrubbing` processor's YAML section share this shape; the rule language is in
// docs/data-protection.md. Everything a sender or an admin writes here is checked when it is set:
// selectors parse, and a user pattern compiles with RE2 (re2js), which matches in time linear in
// the input whatever the pattern, so no setting can make scrubbing slow on hostile text.
import { RE2JS } from 're2js';
import { z } from 'zod';

/** The built-in patterns a rule can name as `@kind` (processors/scrubbing/detectors.ts). */
export const PATTERN_KINDS = ['creditcard', 'bearer', 'privatekey', 'awskey', 'email', 'ip', 'iban', 'uuid'] as const;
export type PatternKind = (typeof PATTERN_KINDS)[number];

export const SCRUB_METHODS = ['replace', 'mask', 'hash', 'remove'] as const;
export type ScrubMethod = (typeof SCRUB_METHODS)[number];

export const FILTERED = '[Filtered]';

/** `$string`, or dot-separated segments: a key (case-insensitive), `'a.b'` (a key with dots), `*` (one level), `**` (any levels). */
export type SelectorSegment = { kind: 'key'; key: string } | { kind: 'any' } | { kind: 'deep' };
export type Selector = { kind: 'string' } | { kind: 'path'; segments: SelectorSegment[] };

const MAX_SEGMENTS = 16;

/** The parsed selector, or why it does not parse. */
export function parseSelector(text: string): Selector | string {
  if (text === '$string') return { kind: 'string' };
  const segments: SelectorSegment[] = [];
  let i = 0;
  while (i <= text.length) {
    let key: string;
    if (text[i] === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) return 'a quoted key has no closing quote';
      key = text.slice(i + 1, close);
      i = close + 1;
      if (i < text.length && text[i] !== '.') return 'a quoted key must be followed by a dot or the end';
      if (key === '') return 'a quoted key is empty';
      segments.push({ kind: 'key', key: key.toLowerCase() });
    } else {
      const dot = text.indexOf('.', i);
      const end = dot < 0 ? text.length : dot;
      key = text.slice(i, end);
      i = end;
      if (key === '') return 'a selector has an empty segment (two dots, or a dot at an end)';
      if (key.startsWith('$')) return `unknown selector ${JSON.stringify(key)}: the only $-selector is $string, alone`;
      if (key.includes("'")) return 'a quote may only open a segment';
      segments.push(key === '*' ? { kind: 'any' } : key === '**' ? { kind: 'deep' } : { kind: 'key', key: key.toLowerCase() });
    }
    if (segments.length > MAX_SEGMENTS) return `a selector has at most ${MAX_SEGMENTS} segments`;
    if (i >= text.length) break;
    i++; // the dot
    if (i === text.length) return 'a selector has an empty segment (two dots, or a dot at an end)';
  }
  // Sentry's `extra` is kept under contexts.extra.
  if (segments[0]?.kind === 'key' && segments[0].key === 'extra') segments.unshift({ kind: 'key', key: 'contexts' });
  return { kind: 'path', segments };
}

/** A compiled user pattern: RE2 semantics (no backreferences or lookarounds), case-sensitive unless it starts with `(?i)`. */
export function compileUserPattern(pattern: string): RE2JS | string {
  try {
    return RE2JS.compile(pattern);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const fieldName = z.string().min(1).max(64);

export const scrubRuleSchema = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/)
      .optional()
      .describe('The name the `scrubbed` list gives for what this rule changed (default `rules[<index>]`)'),
    selector: z.string().min(1).max(256).describe('Where: `$string` (every scrubbed string) or a path such as `extra.**` or `request.headers.x-customer-id`'),
    pattern: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe(`What inside each string: \`@kind\` (${PATTERN_KINDS.join(', ')}) or an RE2 regular expression; none: the whole value`),
    method: z.enum(SCRUB_METHODS).default('replace').describe('replace (with `replacement`), mask (`*` per character), hash (SHA-256, hex), remove'),
    replacement: z.string().max(256).optional().describe(`The text put in place of a match with method replace (default \`${FILTERED}\`)`),
  })
  .strict()
  .superRefine((rule, ctx) => {
    const selector = parseSelector(rule.selector);
    if (typeof selector === 'string') ctx.addIssue({ code: 'custom', path: ['selector'], message: selector });
    if (rule.pattern !== undefined) {
      if (rule.pattern.startsWith('@')) {
        const kind = rule.pattern.slice(1);
        if (!(PATTERN_KINDS as readonly string[]).includes(kind))
          ctx.addIssue({
            code: 'custom',
            path: ['pattern'],
            message: `unknown kind ${JSON.stringify(rule.pattern)} (known: ${PATTERN_KINDS.map((k) => `@${k}`).join(', ')})`,
          });
      } else {
        const compiled = compileUserPattern(rule.pattern);
        if (typeof compiled === 'string') ctx.addIssue({ code: 'custom', path: ['pattern'], message: `not an RE2 regular expression: ${compiled}` });
        else if (compiled.matches('')) ctx.addIssue({ code: 'custom', path: ['pattern'], message: 'matches the empty string' });
      }
    }
    if (rule.replacement !== undefined && rule.method !== 'replace')
      ctx.addIssue({ code: 'custom', path: ['replacement'], message: 'only method replace takes a replacement' });
  });

export type ScrubRule = z.output<typeof scrubRuleSchema>;

/** The options both the YAML section and a project's settings have (a project's override the YAML's, see mergeScrubbing). */
const options = {
  defaults: z.boolean().describe('The default rules: sensitive keys, auth headers and cookies, card numbers, Bearer/Basic credentials, private and AWS keys'),
  scrub_ip: z.boolean().describe('Also scrub IP addresses: `user.ip_address`, `REMOTE_ADDR`, `client.address` and IPv4 addresses in strings'),
  scrub_email: z.boolean().describe('Also scrub e-mail addresses, `user.email` included'),
  sensitive_fields: z.array(fieldName).max(100).describe('More key names to scrub: a key containing one of them (case-insensitive)'),
  safe_fields: z.array(fieldName).max(100).describe('Key names the default rules and options never scrub (exact, case-insensitive); custom rules still apply'),
  rules: z.array(scrubRuleSchema).max(50).describe('Custom rules, applied after the defaults'),
  mask_all_text: z.boolean().describe('Replays: replace every text node character with `*`'),
  mask_all_inputs: z.boolean().describe('Replays: replace input values (typed text, value attributes) with `*`'),
};

/** A project's `data_scrubbing`: every key optional; what it leaves out comes from the YAML. */
export const dataScrubbingSchema = z.object(options).partial().strict();
export type DataScrubbing = z.output<typeof dataScrubbingSchema>;

export const SCRUBBING_DEFAULTS = {
  defaults: true,
  scrub_ip: false,
  scrub_email: false,
  sensitive_fields: [] as string[],
  safe_fields: [] as string[],
  rules: [] as ScrubRule[],
  mask_all_text: false,
  mask_all_inputs: true,
};

export type ScrubbingOptions = typeof SCRUBBING_DEFAULTS;

/** The YAML's options under a project's: flags from the project when it sets them, lists added together (the YAML's first). */
export function mergeScrubbing(base: ScrubbingOptions, project: DataScrubbing | null | undefined): ScrubbingOptions {
  if (!project) return base;
  return {
    defaults: project.defaults ?? base.defaults,
    scrub_ip: project.scrub_ip ?? base.scrub_ip,
    scrub_email: project.scrub_email ?? base.scrub_email,
    mask_all_text: project.mask_all_text ?? base.mask_all_text,
    mask_all_inputs: project.mask_all_inputs ?? base.mask_all_inputs,
    sensitive_fields: [...base.sensitive_fields, ...(project.sensitive_fields ?? [])],
    safe_fields: [...base.safe_fields, ...(project.safe_fields ?? [])],
    rules: [...base.rules, ...(project.rules ?? [])],
  };
}

/** One entry of the `scrubbed` list a scrubbed event carries: where, and by which rule (`@password`, `@creditcard`, a custom rule's id). */
export interface ScrubbedPath {
  path: string;
  rule: string;
}
