// `${env:NAME}` and `${env:NAME:-default}` in YAML string values. Expansion happens on the parsed
// tree, so a variable can never inject YAML structure; a value that is only a placeholder is read
// as a YAML scalar, so `port: ${env:PORT:-8080}` is a number.
import { parse as parseYaml } from 'yaml';
import type { ConfigError } from './errors.js';

const PLACEHOLDER = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const WHOLE = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}$/;

export function expandEnv(value: unknown, env: NodeJS.ProcessEnv, path: string, errors: ConfigError[]): unknown {
  if (typeof value === 'string') return expandString(value, env, path, errors);
  if (Array.isArray(value)) return value.map((v, i) => expandEnv(v, env, `${path}[${i}]`, errors));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) out[key] = expandEnv(v, env, path ? `${path}.${key}` : key, errors);
    return out;
  }
  return value;
}

function expandString(text: string, env: NodeJS.ProcessEnv, path: string, errors: ConfigError[]): unknown {
  const lookup = (name: string, fallback: string | undefined): string => {
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    errors.push({ path, message: `environment variable ${name} is not set (write \${env:${name}:-default} to give a default)` });
    return '';
  };
  const whole = WHOLE.exec(text);
  if (whole) {
    const raw = lookup(whole[1], whole[2]);
    try {
      const scalar: unknown = parseYaml(raw);
      return scalar === null || typeof scalar === 'object' ? raw : scalar;
    } catch {
      return raw;
    }
  }
  return text.replace(PLACEHOLDER, (_, name: string, fallback: string | undefined) => lookup(name, fallback));
}
