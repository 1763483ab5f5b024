// The bare baseline: node:http reading the body and parsing it with general-purpose parsers,
// nothing else, for each ingest route the bench drives: POST /v1/events (JSON.parse, 202 with a
// small JSON answer), Sentry envelopes on POST /api/<id>/envelope/ (split into lines, JSON.parse of
// the header and of each item's header and payload, 200 {"id"}), and OTLP/HTTP protobuf on
// POST /v1/traces (protobufjs' decode, an empty ExportTraceServiceResponse). It runs as a child
// process (`node dist/bench/baseline-server.js serve`), like the service, so both get the same
// treatment from the machine and from the load generator; it uses nothing of Faultline's code.
import { spawn } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { decodeOtlpTraces } from './otlp-proto.js';

const NEWLINE = 0x0a;

/** The items of an envelope, parsed as a server must: header, then per item its header and payload (by length, else to the newline). */
export function parseEnvelope(body: Buffer): { header: Record<string, unknown>; items: unknown[] } {
  let at = body.indexOf(NEWLINE);
  if (at === -1) at = body.length;
  const header = JSON.parse(body.toString('utf8', 0, at)) as Record<string, unknown>;
  const items: unknown[] = [];
  let pos = at + 1;
  while (pos < body.length) {
    let end = body.indexOf(NEWLINE, pos);
    if (end === -1) end = body.length;
    if (end === pos) {
      pos++;
      continue;
    }
    const itemHeader = JSON.parse(body.toString('utf8', pos, end)) as { length?: number };
    const start = end + 1;
    let stop = typeof itemHeader.length === 'number' ? start + itemHeader.length : body.indexOf(NEWLINE, start);
    if (stop === -1) stop = body.length;
    items.push(JSON.parse(body.toString('utf8', start, stop)));
    pos = stop + 1;
  }
  return { header, items };
}

function answer(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body);
}

function serve(): void {
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = req.url ?? '';
      try {
        if (path.startsWith('/v1/traces')) {
          decodeOtlpTraces(body);
          answer(res, 200, 'application/x-protobuf', Buffer.alloc(0));
        } else if (path.startsWith('/api/')) {
          const { header } = parseEnvelope(body);
          answer(res, 200, 'application/json', `{"id":"${String(header.event_id ?? '')}"}`);
        } else {
          JSON.parse(body.toString('utf8'));
          answer(res, 202, 'application/json', `{"id":"${(n++).toString(16).padStart(32, '0')}","status":"queued"}`);
        }
      } catch {
        answer(res, 400, 'application/json', '{"error":"invalid_body"}');
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`baseline listening on port ${typeof address === 'object' && address ? address.port : 0}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

export interface BaselineServer {
  pid: number;
  url: string;
  stop(): Promise<void>;
}

export async function startBaseline(): Promise<BaselineServer> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), 'serve'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /port (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    void exited.then(() => reject(new Error('the baseline server exited')));
  });
  return {
    pid: child.pid as number,
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'serve') serve();
