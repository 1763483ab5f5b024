// The environment and release of a span, from its resource attributes: what the exceptions
// connector gives the error events it makes from a span, and what a trace list filters by.
import type { AttributeValue, Attributes, Span } from './span.js';

/** What the span validator puts in service_name when the sender gave none. */
const UNKNOWN_SERVICE = 'unknown_service';

/** A scalar attribute as a non-empty string (numbers and booleans stringified), else undefined. */
export function attributeText(value: AttributeValue | undefined): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'boolean') return String(value);
  return undefined;
}

export function firstText(attributes: Attributes, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const text = attributeText(attributes[key]);
    if (text !== undefined) return text;
  }
  return undefined;
}

/** The span's service_name unless it is the validator's placeholder, else the resource's. */
export function serviceOf(span: Pick<Span, 'service_name'>, resource: Attributes): string | undefined {
  if (span.service_name && span.service_name.trim() !== '' && span.service_name !== UNKNOWN_SERVICE) return span.service_name;
  return attributeText(resource['service.name']);
}

/** The environment and release a span's events get (and a trace list filters by): from its resource. */
export function spanScope(span: Pick<Span, 'service_name' | 'resource_attributes'>): { environment: string; release: string } {
  const resource = span.resource_attributes ?? {};
  return {
    environment: firstText(resource, ['deployment.environment.name', 'deployment.environment']) ?? 'production',
    release: releaseOf(serviceOf(span, resource), resource),
  };
}

function releaseOf(service: string | undefined, resource: Attributes): string {
  const version = attributeText(resource['service.version']);
  if (version !== undefined) return `${service ?? 'unknown'}@${version}`;
  return service ?? 'unknown';
}
