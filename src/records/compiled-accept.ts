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

/**
 * How an accept-path builds zod's output. `copy` (the default): every object and array anew, as
 * zod does, so the input is never shared with the output. `reuse`: the input's own objects and
 * arrays wherever zod's output would equal them (the same keys in the same order, the same values),
 * a new one only for a node that differs and for the nodes above it; it never writes to the input,
 * so zod still sees the input as it came when the path is unsure. The output then shares the
 * input's nodes: only for a caller that owns the input (its own freshly parsed JSON) and lets the
 * output's users change it.
 */
export interface AcceptOptions {
  reuse?: boolean;
}

/** The accept-path of `schema`, or undefined when it uses a construct this compiler does not know. */
export function compileAccept(schema: z.ZodType, options: AcceptOptions = {}): Accept | undefined {
  try {
    return compile(schema as unknown as Schema, { reuse: options.reuse === true, seen: new Map() });
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

interface Compiling {
  reuse: boolean;
  seen: Map<Schema, Accept>;
}

function compile(schema: Schema, c: Compiling): Accept {
  const { seen } = c;
  const known = seen.get(schema);
  if (known) return known;
  // Recursive schemas (zod 4's getters) meet themselves again: a trampoline until compiled.
  const ref: { accept?: Accept } = {};
  seen.set(schema, (value) => (ref.accept as Accept)(value));
  ref.accept = withChecks(schema, compileType(schema, c));
  seen.set(schema, ref.accept);
  return ref.accept;
}

/** Runs the schema's checks (and the schema itself when it is one, as z.int() is) on the output, as zod does. */
function withChecks(schema: Schema, accept: Accept): Accept {
  const checks: Check[] = [...(schema._zod.def.checks ?? [])];
  if (schema._zod.traits.has('$ZodCheck') && schema._zod.check) checks.unshift(schema as unknown as Check);
  if (checks.length === 0) return accept;
  // One payload for every call (an event runs these checks a hundred times); a fresh one only
  // when a check runs this path again before it is done.
  const shared: Payload = { value: undefined, issues: [] };
  let busy = false;
  return (value) => {
    const out = accept(value);
    if (out === UNSURE) return UNSURE;
    const payload: Payload = busy ? { value: out, issues: [] } : shared;
    const owner = !busy;
    busy = true;
    payload.value = out;
    if (payload.issues.length > 0) payload.issues.length = 0;
    try {
      for (const check of checks) {
        check._zod.check(payload);
        if (payload.issues.length > 0) return UNSURE;
      }
      return payload.value;
    } finally {
      if (owner) {
        busy = false;
        shared.value = undefined;
      }
    }
  };
}

function compileType(schema: Schema, c: Compiling): Accept {
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
      const inner = compile(def.innerType as Schema, c);
      return (value) => (value === undefined ? undefined : inner(value));
    }
    case 'default': {
      const inner = compile(def.innerType as Schema, c);
      return (value) => (value === undefined ? def.defaultValue : inner(value));
    }
    case 'array': {
      const element = compile(def.element as Schema, c);
      if (c.reuse) return reusingArray(element);
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
      const options = (def.options as Schema[]).map((option) => compile(option, c));
      return (value) => {
        for (const option of options) {
          const out = option(value);
          if (out !== UNSURE) return out;
        }
        return UNSURE;
      };
    }
    case 'pipe': {
      const input = compile(def.in as Schema, c);
      const output = compile(def.out as Schema, c);
      return (value) => {
        const mid = input(value);
        return mid === UNSURE ? UNSURE : output(mid);
      };
    }
    case 'transform': {
      const transform = def.transform as (value: unknown, ctx: Payload & { addIssue: () => void }) => unknown;
      // One context for every call, as withChecks keeps one payload (a fresh one when re-entered).
      const contextOf = (value: unknown) => {
        const ctx = { value, issues: [] as unknown[], addIssue: () => void ctx.issues.push(1) };
        return ctx;
      };
      const shared = contextOf(undefined);
      let busy = false;
      return (value) => {
        const owner = !busy;
        const ctx = owner ? shared : contextOf(value);
        busy = true;
        ctx.value = value;
        if (ctx.issues.length > 0) ctx.issues.length = 0;
        try {
          const out = transform(value, ctx);
          return ctx.issues.length > 0 || out instanceof Promise ? UNSURE : out;
        } finally {
          if (owner) {
            busy = false;
            shared.value = undefined;
          }
        }
      };
    }
    case 'record':
      return compileRecord(def, c);
    case 'object':
      return compileObject(def, c);
    default:
      throw new Unsupported(def.type);
  }
}

function compileRecord(def: Def, c: Compiling): Accept {
  const keyType = (def.keyType as Schema)._zod.def;
  if (keyType.type !== 'string' || (keyType.checks?.length ?? 0) > 0) throw new Unsupported('record key');
  const valueOf = compile(def.valueType as Schema, c);
  if (c.reuse) return reusingRecord(valueOf);
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

/** What zod does when an object lacks the field: an error (required), leave it out (optional in and out), or fill it in (a default). */
function absenceOf(field: Schema): 'required' | 'omit' | 'fill' {
  const { optin, optout } = field._zod;
  // (zod's optin is 'optional' or, for a default, 'defaulted'; see handlePropertyResult in zod's core.)
  return optin === undefined ? 'required' : optin === 'optional' && optout === 'optional' ? 'omit' : 'fill';
}

/**
 * Objects are generated code (named property loads, one per field of the shape), as zod's own
 * fast path is: a loop over the keys with `value[key]` makes every load megamorphic and cost
 * about twice as much over a 6 KB event.
 */
function compileObject(def: Def, c: Compiling): Accept {
  const shape = def.shape as Record<string, Schema>;
  const keys = Object.keys(shape);
  const catchall = def.catchall as Schema | undefined;
  if (catchall && catchall._zod.def.type !== 'unknown') throw new Unsupported('catchall');
  if (c.reuse) return reusingObject(shape, catchall !== undefined, c);
  const accepts: Accept[] = [];
  const lines = ['if (typeof value !== "object" || value === null || Array.isArray(value)) return UNSURE;', 'const out = {};', 'let v, r;'];
  for (const key of keys) {
    const field = shape[key];
    const k = JSON.stringify(key);
    const absent = absenceOf(field);
    const plain = plainType(field);
    lines.push(`v = value[${k}];`);
    // A key present with the value undefined (not JSON) is left to zod.
    const whenAbsent = `if (${k} in value) return UNSURE; `;
    if (plain && absent === 'omit') {
      lines.push(`if (v === undefined) { ${whenAbsent}} else if (typeof v === "${plain}") out[${k}] = v; else return UNSURE;`);
      continue;
    }
    const a = `a${accepts.length}`;
    accepts.push(compile(field, c));
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

/** An array's accept-path in reuse mode: the array itself while every element's output is the element. */
function reusingArray(element: Accept): Accept {
  return (value) => {
    if (!Array.isArray(value)) return UNSURE;
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const item = element(v);
      if (item === UNSURE) return UNSURE;
      if (out !== undefined) out[i] = item;
      // A hole is output as an element: the array is then made anew.
      else if (item !== v || (v === undefined && !(i in value))) {
        out = new Array<unknown>(value.length);
        for (let before = 0; before < i; before++) out[before] = value[before];
        out[i] = item;
      }
    }
    return out ?? value;
  };
}

/** A record's accept-path in reuse mode: the record itself while every value's output is the value. */
function reusingRecord(valueOf: Accept): Accept {
  return (value) => {
    if (!isPlainObject(value)) return UNSURE;
    // zod's output is a plain object: another prototype (not JSON's) is copied from the start.
    let out: Record<string, unknown> | undefined = Object.getPrototypeOf(value) === Object.prototype ? undefined : {};
    for (const key in value) {
      if (key === UNSAFE_KEY) return UNSURE;
      const v = value[key];
      const item = valueOf(v);
      if (item === UNSURE) return UNSURE;
      if (out !== undefined) out[key] = item;
      else if (item !== v) {
        out = {};
        for (const before in value) {
          if (before === key) break;
          out[before] = value[before];
        }
        out[key] = item;
      }
    }
    return out ?? value;
  };
}

/**
 * An object's accept-path in reuse mode, generated as compileObject's is. The value itself when
 * zod's output would equal it: every field's output is the field's value, no default is filled in,
 * its keys are the shape's in the shape's order with no other key (a strict object, whose unknown
 * keys zod strips) or followed by the other keys (a loose one), and it is a plain object (as JSON's
 * are). Else a new object, built as the copy mode builds it from the fields' outputs.
 */
function reusingObject(shape: Record<string, Schema>, loose: boolean, c: Compiling): Accept {
  const keys = Object.keys(shape);
  const n = keys.length;
  const accepts: Accept[] = [];
  const results = keys.map((_, i) => `r${i}`);
  const lines = [
    'if (typeof value !== "object" || value === null || Array.isArray(value)) return UNSURE;',
    `let v, same = Object.getPrototypeOf(value) === OBJECT${results.map((r) => `, ${r}`).join('')};`,
  ];
  const build = ['const out = {};'];
  keys.forEach((key, i) => {
    const field = shape[key];
    const k = JSON.stringify(key);
    const r = results[i];
    const absent = absenceOf(field);
    const plain = plainType(field);
    lines.push(`v = value[${k}];`);
    // A key present with the value undefined (not JSON) is left to zod.
    const whenAbsent = `if (${k} in value) return UNSURE;`;
    if (plain && absent === 'omit') {
      lines.push(`if (v === undefined) { ${whenAbsent} } else if (typeof v !== "${plain}") return UNSURE; ${r} = v;`);
      build.push(`if (${r} !== undefined) out[${k}] = ${r};`);
      return;
    }
    const a = `a${accepts.length}`;
    accepts.push(compile(field, c));
    const run = `${r} = ${a}(v); if (${r} === UNSURE) return UNSURE; if (${r} !== v) same = false;`;
    if (absent === 'required') lines.push(`if (v === undefined) return UNSURE; ${run}`);
    else if (absent === 'omit') lines.push(`if (v === undefined) { ${whenAbsent} } else { ${run} }`);
    else lines.push(`if (v === undefined && ${k} in value) return UNSURE; ${run}`);
    build.push(absent === 'required' ? `out[${k}] = ${r};` : `if (${r} !== undefined || value[${k}] !== undefined) out[${k}] = ${r};`);
  });
  // The keys in order: each one found further along the shape than the one before (a string compare per step).
  const inOrder = `while (j < ${n} && key !== keys[j]) j++; if (j === ${n}) { same = false; break; } j++;`;
  lines.push('if (same) {', 'let j = 0;');
  if (loose) {
    lines.push(`let extra = false;`);
    lines.push(
      `for (const key in value) { if (!known.has(key)) { if (key === "${UNSAFE_KEY}") return UNSURE; extra = true; } else if (extra) { same = false; break; } else { ${inOrder} } }`,
    );
  } else {
    lines.push(`for (const key in value) { ${inOrder} }`);
  }
  lines.push('}', 'if (same) return value;');
  if (loose) build.push(`for (const key in value) { if (known.has(key)) continue; if (key === "${UNSAFE_KEY}") return UNSURE; out[key] = value[key]; }`);
  build.push('return out;');
  const params = accepts.map((_, i) => `a${i}`);
  // Generated from the schema's own keys (JSON-quoted), never from a request.
  const factory = new Function('UNSURE', 'OBJECT', 'known', 'keys', ...params, `return function accept(value) {\n${[...lines, ...build].join('\n')}\n};`) as (
    ...args: unknown[]
  ) => Accept;
  return factory(UNSURE, Object.prototype, new Set(keys), keys, ...accepts);
}
