// HTTP/1.1 over a raw socket: for what no HTTP client sends (malformed requests, bodies that stop
// halfway or never come).
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
  /** Whether the server closed the connection after the answer. */
  closed: boolean;
}

/** Opens a connection to 127.0.0.1:`port` and writes `data` (more can be written on the socket). */
export function openRaw(port: number, data: string | Buffer): { socket: Socket; response: Promise<RawResponse> } {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined); // a reset after the answer is expected in some tests
  let received = Buffer.alloc(0);
  const response = new Promise<RawResponse>((resolve, reject) => {
    let parsed: Omit<RawResponse, 'closed'> | undefined;
    const tryParse = () => {
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (received.length - end - 4 < length) return;
      parsed = { status: Number(statusLine.split(' ')[1]), headers, body: received.subarray(end + 4, end + 4 + length).toString('utf8') };
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (!parsed) tryParse();
      if (parsed && parsed.headers.connection !== 'close') resolve({ ...parsed, closed: false });
    });
    socket.on('close', () => {
      if (!parsed) tryParse();
      if (parsed) resolve({ ...parsed, closed: true });
      else reject(new Error(`the connection closed without a complete answer: ${JSON.stringify(received.toString('latin1').slice(0, 200))}`));
    });
  });
  socket.write(data);
  return { socket, response };
}

/** Sends `data` and reads the answer. */
export function rawRequest(port: number, data: string | Buffer): Promise<RawResponse> {
  return openRaw(port, data).response;
}

export function portOf(url: string | undefined): number {
  if (!url) throw new Error('no such listener');
  return Number(new URL(url).port);
}
