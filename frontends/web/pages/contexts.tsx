// An event's contexts (os, runtime, browser, device, app, trace, and any other the SDK sent) as
// one key/value table each, the well-known ones first; a nested value is shown as compact JSON.
import { h } from '../jsx.js';

const KNOWN = ['trace', 'os', 'runtime', 'browser', 'device', 'app', 'culture', 'cloud_resource', 'replay'];
const TITLES: Record<string, string> = { os: 'OS', app: 'App', trace: 'Trace', cloud_resource: 'Cloud resource' };
/** Fields past this many in one context are left out (a hostile SDK may send thousands). */
const MAX_FIELDS = 100;
const MAX_TEXT = 2000;

function text(value: unknown): string {
  const out = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
  return out.length > MAX_TEXT ? `${out.slice(0, MAX_TEXT)}…` : out;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function ContextTables({ contexts }: { contexts: Record<string, unknown> }) {
  const names = Object.keys(contexts).sort((a, b) => {
    const ia = KNOWN.indexOf(a);
    const ib = KNOWN.indexOf(b);
    return (ia < 0 ? KNOWN.length : ia) - (ib < 0 ? KNOWN.length : ib) || a.localeCompare(b);
  });
  return (
    <div class="contexts">
      {names.map((name) => {
        const value = contexts[name];
        const fields = isObject(value) ? Object.entries(value).filter(([k, v]) => k !== 'type' && v !== null && v !== undefined) : [['value', value] as const];
        const title = TITLES[name] ?? name.charAt(0).toUpperCase() + name.slice(1);
        return (
          <table class="context-table" data-context={name}>
            <caption>{title}</caption>
            <tbody>
              {fields.slice(0, MAX_FIELDS).map(([key, v]) => (
                <tr>
                  <th scope="row">{key}</th>
                  <td>{isObject(v) || Array.isArray(v) ? <code>{text(v)}</code> : text(v)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        );
      })}
    </div>
  );
}
