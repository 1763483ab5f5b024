// The `rules` key of the grouping processor's YAML section. Each rule string is parsed at load, so a
// bad rule is a config error at its list index (processors.grouping.rules.stacktrace[2]: column 13: …).
import { z } from 'zod';
import { parseFingerprintRule } from './fingerprint.js';
import { parseStacktraceRule } from './stacktrace.js';
import { isCommentOrBlank, RuleSyntaxError } from './syntax.js';

/** A list of rule strings, parsed one by one; comment (`# …`) and blank entries are skipped. */
function ruleList<T>(parse: (text: string) => T, description: string) {
  const rule = z.string().transform((text, ctx): T | undefined => {
    if (isCommentOrBlank(text)) return undefined;
    try {
      return parse(text);
    } catch (error) {
      if (!(error instanceof RuleSyntaxError)) throw error;
      ctx.addIssue({ code: 'custom', message: error.message, input: text });
      return z.NEVER;
    }
  });
  return z
    .array(rule)
    .transform((rules) => rules.filter((r) => r !== undefined))
    .prefault([])
    .describe(description);
}

export const groupingRulesSchema = z
  .object({
    stacktrace: ruleList(
      parseStacktraceRule,
      'Stack-trace rules, applied in order (later ones override earlier ones): `matcher:value … action …`, e.g. `path:**/vendor/** -app` (see rules/README.md)',
    ),
    fingerprint: ruleList(
      parseFingerprintRule,
      'Fingerprint rules, the first match wins: `matcher:value … -> part, part [title="…"]`, e.g. `type:DatabaseError value:"connection*" -> database-connection`',
    ),
  })
  .strict()
  .prefault({});

export type GroupingRules = z.output<typeof groupingRulesSchema>;
