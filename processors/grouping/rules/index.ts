// Sentry-like grouping rules for the grouping processor (see README.md): stack-trace rules mark
// frames in or out of the app and of grouping; fingerprint rules give matching events a fingerprint.
export { type Family, FAMILIES, familyForPlatform, type RuleFrame } from './frames.js';
export { type FingerprintMatch, type FingerprintRule, type FingerprintSubject, matchFingerprintRules, parseFingerprintRule } from './fingerprint.js';
export { type GroupingRules, groupingRulesSchema } from './schema.js';
export { applyStacktraceRules, type FrameVerdict, parseStacktraceRule, type StacktraceRule } from './stacktrace.js';
export { RuleSyntaxError } from './syntax.js';
