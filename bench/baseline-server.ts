// The bare baseline for POST /v1/events: node:http reading the body, JSON.parse and a 202 with a
// small JSON answer, nothing else. It runs as a child process (`node dist/bench/baseline-server.js`),
// like the service, so both get the same treatment from the machine and from the load generator.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

function serve(): void {
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_json"}');
        return;
      }
      const body = `{"id":"${(n++).toString(16).padStart(32, '0')}","status":"queued"}`;
      res.writeHead(202, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
  });
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
