// Python frames as Sentry's Python SDK sends them: `module`, `function` (the code object's name:
// `<lambda>`, `<listcomp>`, `<module>`), `filename` relative to its import root, `abs_path` under
// the app, the interpreter's stdlib or site-packages (both named by the Python version), in_app
// false for the library and stdlib frames. Comprehensions have their own frame up to Python 3.11
// and are inlined from 3.12 (PEP 709).
import type { CorpusFrame } from './types.js';

export type PyVersion = '3.9' | '3.10' | '3.11' | '3.12';

export interface PySite {
  module: string;
  fn: string;
  line: number;
  /** `<listcomp>`/`<dictcomp>`/`<setcomp>`: no frame of its own from Python 3.12. */
  comprehension?: boolean;
  /** The qualified name (`co_qualname`, Python 3.11+): `CartView.get`, `build_tracer.<locals>.trace_task`. */
  qual?: string;
  /** A template's file (`templates/receipt.html`), relative to the app's root. */
  template?: string;
}

export const py = (module: string, fn: string, line: number, comprehension = false, qual?: string): PySite => ({ module, fn, line, comprehension, qual });

/** A Jinja2 template's compiled code: a frame with the template's file and no module. */
export const template = (file: string, fn: string, line: number): PySite => ({ module: '', fn, line, template: file });

const STDLIB = new Set([
  'asyncio',
  'concurrent',
  'json',
  'threading',
  'socket',
  'socketserver',
  'http',
  'ssl',
  'urllib',
  'decimal',
  '_strptime',
  'datetime',
  'contextlib',
  'functools',
  'runpy',
  'logging',
  'uuid',
  're',
  'csv',
  'copy',
  'base64',
  'email',
  'importlib',
  'multiprocessing',
  'queue',
  'selectors',
  'subprocess',
  'sqlite3',
  'typing',
  'wsgiref',
  'zoneinfo',
]);

export interface PyPlace {
  version: PyVersion;
  /** Where the app's packages live (`/srv/app`, `/app`, `/home/deploy/releases/…`). */
  root: string;
  /** Top-level packages of the app (in_app). */
  app: readonly string[];
  /** Where third-party packages are installed, `{version}` standing for the Python version (default: the interpreter's site-packages). */
  sitePackages?: string;
  /** The SDK reports qualified names (from Python 3.11 on). */
  qualnames?: boolean;
}

export function renderPython(sites: readonly PySite[], place: PyPlace): CorpusFrame[] {
  const frames: CorpusFrame[] = [];
  for (const site of sites) {
    if (site.comprehension && place.version === '3.12') continue;
    if (site.template !== undefined) {
      frames.push({ function: site.fn, filename: site.template, abs_path: `${place.root}/${site.template}`, lineno: site.line, in_app: true });
      continue;
    }
    const top = site.module.split('.')[0];
    const path = `${site.module.replaceAll('.', '/')}.py`;
    const inApp = place.app.includes(top);
    const sitePackages = (place.sitePackages ?? '/usr/local/lib/python{version}/site-packages').replace('{version}', place.version);
    const base = inApp ? place.root : STDLIB.has(top) ? `/usr/local/lib/python${place.version}` : sitePackages;
    const fn = place.qualnames && place.version !== '3.9' && place.version !== '3.10' && site.qual !== undefined ? site.qual : site.fn;
    frames.push({ function: fn, module: site.module, filename: path, abs_path: `${base}/${path}`, lineno: site.line, in_app: inApp });
  }
  return frames;
}

/** A Python exception type as the SDK sends it: the class name, and its module unless builtin. */
export function pyType(qualified: string): { type: string; module?: string } {
  const dot = qualified.lastIndexOf('.');
  return dot < 0 ? { type: qualified } : { type: qualified.slice(dot + 1), module: qualified.slice(0, dot) };
}
