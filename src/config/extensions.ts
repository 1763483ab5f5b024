// The `extensions:` section and `service.extensions`, as in the Collector: which extensions run,
// with what config, in which order (dependencies first), and whether every extension a running
// component or extension declares it needs is among them. Without `service.extensions` the
// registry's extensions all run, bare or with their section under `extensions:`: a configuration
// written before extensions existed means the same as before.
import { parseComponentId, type ComponentFactory } from '../engine/component.js';
import { orderExtensions, type ExtensionSpec } from '../engine/extensions.js';
import type { Registry } from '../engine/registry.js';
import type { ConfigError } from './errors.js';

export type ResolvedExtension = ExtensionSpec;

/** A component that will run (in a pipeline, or read from), with the YAML path that configures it. */
export interface UsedComponent {
  path: string;
  factory: ComponentFactory;
}

export function resolveExtensions(
  section: unknown,
  listed: unknown,
  used: readonly UsedComponent[],
  registry: Registry,
  errors: ConfigError[],
): ResolvedExtension[] {
  const configs = new Map<string, { path: string; value: unknown }>();
  if (section !== undefined && section !== null) {
    if (!isRecord(section)) errors.push({ path: 'extensions', message: 'must be a mapping of extension ids to their settings' });
    else for (const [text, value] of Object.entries(section)) configs.set(text, { path: `extensions.${text}`, value });
  }
  let ids: Array<{ text: string; path: string }>;
  if (listed === undefined || listed === null) {
    ids = registry.extensions().map((factory) => ({ text: factory.type, path: 'service.extensions' }));
  } else if (!Array.isArray(listed) || listed.some((item) => typeof item !== 'string')) {
    errors.push({ path: 'service.extensions', message: 'must be a list of extension ids (type[/name]) configured under extensions:' });
    return [];
  } else {
    ids = (listed as string[]).map((text, index) => ({ text, path: `service.extensions[${index}]` }));
    const dup = ids.find((entry, index) => ids.findIndex((other) => other.text === entry.text) !== index);
    if (dup) errors.push({ path: dup.path, message: `"${dup.text}" is listed twice` });
  }

  const specs: ResolvedExtension[] = [];
  for (const { text, path } of ids) {
    const id = parseComponentId(text);
    if (!id) {
      errors.push({ path, message: 'an extension id is type[/name], e.g. catalog or duckdb' });
      continue;
    }
    const factory = registry.extension(id.type);
    if (!factory) {
      const known = registry
        .extensions()
        .map((f) => f.type)
        .join(', ');
      errors.push({ path, message: `unknown extension type "${id.type}" (known: ${known || 'none'})` });
      continue;
    }
    const configured = configs.get(text);
    if (configured === undefined) {
      specs.push({ id, factory, config: factory.defaultConfig() });
      continue;
    }
    const parsed = factory.configSchema.safeParse(configured.value ?? {});
    if (!parsed.success) {
      for (const issue of parsed.error.issues) errors.push({ path: [configured.path, ...issue.path.map(String)].join('.'), message: issue.message });
      continue;
    }
    specs.push({ id, factory, config: parsed.data });
  }
  for (const [text, { path }] of configs)
    if (!ids.some((entry) => entry.text === text)) errors.push({ path, message: `extension "${text}" is configured but not listed in service.extensions` });

  // Listed counts, also when its section has errors (already reported): what needs it is not wrong.
  const running = new Set(ids.map((entry) => entry.text));
  const { ordered, cycle } = orderExtensions(specs);
  for (const spec of specs)
    for (const needs of spec.factory.dependencies ?? [])
      if (!running.has(needs))
        errors.push({ path: 'service.extensions', message: `extension "${spec.id.text}" needs extension "${needs}", which service.extensions does not list` });
  if (cycle.length) errors.push({ path: 'service.extensions', message: `extensions depend on each other in a cycle: ${cycle.join(' -> ')}` });

  const reported = new Set<string>();
  for (const { path, factory } of used) {
    for (const needs of factory.extensions ?? []) {
      if (running.has(needs) || reported.has(`${path}:${needs}`)) continue;
      reported.add(`${path}:${needs}`);
      const known = registry.extension(needs) ? '' : ` (no extension of that type is registered)`;
      errors.push({
        path,
        message: `${factory.kind} "${path.split('.').slice(1).join('.')}" needs extension "${needs}", which service.extensions does not list${known}`,
      });
    }
  }
  return ordered;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
