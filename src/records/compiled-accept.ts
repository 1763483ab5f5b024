// A compiled accept-path for a zod schema: plain closures built once from the schema's own
// definition (types, shapes, unions, defaults, transforms) that run zod's own check functions
// (lengths, patterns, refinements). It answers only "valid, and here is what zod would output" or
// "not sure": the caller then runs zod itself, so every rejection, its paths and its wording
// stay zod's. Being built from the schema, it cannot drift from it; a schema construct it does not
// know makes compileAccept() return undefined (zod alone then), and test/validation/compiled.test.ts
// proves that its output equals zod's on the schema tests' bodies. Why: zod's safeParse was the
// largest JavaScript share of an event's CPU, and this path takes a fraction of it (see
// bench/README.md, "Performance history").
import type { z } from 'zod';

/** What an accept-path returns when it is not sure the value is valid (then zod decides). */
export const UNSURE: unique symbol = Symbol('unsure');
type Accept = (value: unknown) => unknown;

interface Def {
  type: string;
  checks?: Check[];
  [key: string]: unknown;
}
interface Check {
  _zod: { check: (payload: Payload) => void; def: { when?: unknown } };
}
interface Payload {
  value: unknown;
  issues: unknown[];
}
interface Schema {
  _zod: { def: Def; traits: Set<string>; check?: (payload: Payload) => void; optin?: string; optout?: string };
}

class Unsupported extends Error {}

/** The accept-path of `schema`, or undefined when it uses a construct this compiler does not know. */
export function compileAccept(schema: z.ZodType): Accept | undefined {
  try {
    return compile(schema as unknown as Schema, new Map());
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A key zod's output would assign in a way a plain assignment does not reproduce. */
const UNSAFE_KEY = '__proto__';

function compile(schema: Schema, seen: Map<Schema, Accept>): Accept {
  const known = seen.get(schema);
  if (known) return known;
  // Recursive schemas (zod 4's getters) meet themselves again: a trampoline until compiled.
  const ref: { accept?: Accept } = {};
  seen.set(schema, (value) => (ref.accept as Accept)(value));
  ref.accept = withChecks(schema, compileType(schema, seen));
  seen.set(schema, ref.accept);
  return ref.accept;
}

/** Runs the schema's checks (and the schema itself when it is one, as z.int() is) on the output, as zod does. */
function withChecks(schema: Schema, accept: Accept): Accept {
  const checks: Check[] = [...(schema._zod.def.checks ?? [])];
  if (schema._zod.traits.has('$ZodCheck') && schema._zod.check) checks.unshift(schema as unknown as Check);
  if (checks.length === 0) return accept;
  return (value) => {
    const out = accept(value);
    if (out === UNSURE) return UNSURE;
    const payload: Payload = { value: out, issues: [] };
    for (const check of checks) {
      check._zod.check(payload);
      if (payload.issues.length > 0) return UNSURE;
    }
    return payload.value;
  };
}

function compileType(schema: Schema, seen: Map<Schema, Accept>): Accept {
  const def = schema._zod.def;
  switch (def.type) {
    case 'string':
      return (value) => (typeof value === 'string' ? value : UNSURE);
    case 'number':
      return (value) => (typeof value === 'number' && Number.isFinite(value) ? value : UNSURE);
    case 'boolean':
      return (value) => (typeof value === 'boolean' ? value : UNSURE);
    case 'unknown':
      return (value) => value;
    case 'enum': {
      const values = new Set(Object.values(def.entries as Record<string, unknown>));
      return (value) => (values.has(value) ? value : UNSURE);
    }
    case 'literal': {
      const values = new Set(def.values as unknown[]);
      return (value) => (values.has(value) ? value : UNSURE);
    }
    case 'optional': {
      const inner = compile(def.innerType as Schema, seen);
      return (value) => (value === undefined ? undefined : inner(value));
    }
    case 'default': {
      const inner = compile(def.innerType as Schema, seen);
      return (value) => (value === undefined ? def.defaultValue : inner(value));
    }
    case 'array': {
      const element = compile(def.element as Schema, seen);
      return (value) => {
        if (!Array.isArray(value)) return UNSURE;
        const out = new Array<unknown>(value.length);
        for (let i = 0; i < value.length; i++) {
          const item = element(value[i]);
          if (item === UNSURE) return UNSURE;
          out[i] = item;
        }
        return out;
      };
    }
    case 'union': {
      const options = (def.options as Schema[]).map((option) => compile(option, seen));
      return (value) => {
        for (const option of options) {
          const out = option(value);
          if (out !== UNSURE) return out;
        }
        return UNSURE;
      };
    }
    case 'pipe': {
      const input = compile(def.in as Schema, seen);
      const output = compile(def.out as Schema, seen);
      return (value) => {
        const mid = input(value);
        return mid === UNSURE ? UNSURE : output(mid);
      };
    }
    case 'transform': {
      const transform = def.transform as (value: unknown, ctx: Payload & { addIssue: () => void }) => unknown;
      return (value) => {
        const ctx = { value, issues: [] as unknown[], addIssue: () => void ctx.issues.push(1) };
        const out = transform(value, ctx);
        return ctx.issues.length > 0 || out instanceof Promise ? UNSURE : out;
      };
    }
    case 'record':
      return compileRecord(def, seen);
    case 'object':
      return compileObject(def, seen);
    default:
      throw new Unsupported(def.type);
  }
}

function compileRecord(def: Def, seen: Map<Schema, Accept>): Accept {
  const keyType = (def.keyType as Schema)._zod.def;
  if (keyType.type !== 'string' || (keyType.checks?.length ?? 0) > 0) throw new Unsupported('record key');
  const valueOf = compile(def.valueType as Schema, seen);
  return (value) => {
    if (!isPlainObject(value)) return UNSURE;
    const out: Record<string, unknown> = {};
    for (const key in value) {
      if (key === UNSAFE_KEY) return UNSURE;
      const item = valueOf(value[key]);
      if (item === UNSURE) return UNSURE;
      out[key] = item;
    }
    return out;
  };
}

/** `string` or `boolean` when `schema` is that type with no checks (optional or not): inlined by objects. */
function plainType(schema: Schema): 'string' | 'boolean' | undefined {
  let def = schema._zod.def;
  if (def.type === 'optional') def = (def.innerType as Schema)._zod.def;
  if ((def.type === 'string' || def.type === 'boolean') && (def.checks?.length ?? 0) === 0) return def.type;
  return undefined;
}

/**
 * Objects are generated code (named property loads, one per field of the shape), as zod's own
 * fast path is: a loop over the keys with `value[key]` makes every load megamorphic and cost
 * about twice as much over a 6 KB event.
 */
function compileObject(def: Def, seen: Map<Schema, Accept>): Accept {
  const shape = def.shape as Record<string, Schema>;
  const keys = Object.keys(shape);
  const catchall = def.catchall as Schema | undefined;
  if (catchall && catchall._zod.def.type !== 'unknown') throw new Unsupported('catchall');
  const accepts: Accept[] = [];
  const lines = ['if (typeof value !== "object" || value === null || Array.isArray(value)) return UNSURE;', 'const out = {};', 'let v, r;'];
  for (const key of keys) {
    const field = shape[key];
    const k = JSON.stringify(key);
    // Absent: left out (optional in and out), filled in (a default), or an error (required).
    const { optin, optout } = field._zod;
    // (zod's optin is 'optional' or, for a default, 'defaulted'; see handlePropertyResult in zod's core.)
    const absent = optin === undefined ? 'required' : optin === 'optional' && optout === 'optional' ? 'omit' : 'fill';
    const plain = plainType(field);
    lines.push(`v = value[${k}];`);
    // A key present with the value undefined (not JSON) is left to zod.
    const whenAbsent = `if (${k} in value) return UNSURE; `;
    if (plain && absent === 'omit') {
      lines.push(`if (v === undefined) { ${whenAbsent}} else if (typeof v === "${plain}") out[${k}] = v; else return UNSURE;`);
      continue;
    }
    const a = `a${accepts.length}`;
    accepts.push(compile(field, seen));
    if (absent === 'required') lines.push(`if (v === undefined) return UNSURE;`);
    else if (absent === 'omit') lines.push(`if (v === undefined) { ${whenAbsent}} else {`);
    else lines.push(`if (v === undefined && ${k} in value) return UNSURE; {`);
    lines.push(`r = ${a}(v); if (r === UNSURE) return UNSURE; if (r !== undefined || v !== undefined) out[${k}] = r;`);
    if (absent !== 'required') lines.push('}');
  }
  if (catchall) {
    lines.push(`for (const key in value) { if (known.has(key)) continue; if (key === "${UNSAFE_KEY}") return UNSURE; out[key] = value[key]; }`);
  }
  lines.push('return out;');
  const params = accepts.map((_, i) => `a${i}`);
  // Generated from the schema's own keys (JSON-quoted), never from a request.
  const factory = new Function('UNSURE', 'known', ...params, `return function accept(value) {\n${lines.join('\n')}\n};`) as (...args: unknown[]) => Accept;
  return factory(UNSURE, new Set(keys), ...accepts);
}
