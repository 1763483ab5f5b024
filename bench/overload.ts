// Overload: events offered at a fixed rate (about 3x the measured capacity) for a short period,
// open loop: requests are sent on schedule whatever the answers, pipelined over a few hundred
// keep-alive connections (a closed-loop driver like autocannon could never offer more than the
// service answers). Latency is measured from the scheduled send time, so queueing anywhere (in the
// client, the kernel or the service) counts. Then: how long until a single request is answered 202
// within the normal p99 again.
import { connect, type Socket } from 'node:net';
import { request as httpRequest, Agent } from 'node:http';
import { Samples, sleep } from './stats.js';
import type { RssSampler } from './memory.js';

/** One keep-alive connection with any number of requests in flight (HTTP/1.1 pipelining). */
class PipelinedConnection {
  private socket!: Socket;
  private buffer: Buffer = Buffer.alloc(0);
  private readonly pending: number[] = [];
  closed = false;

  constructor(
    private readonly port: number,
    private readonly onResponse: (status: number, scheduledAt: number) => void,
    private readonly onLost: (count: number) => void,
  ) {
    this.open();
  }

  get inFlight(): number {
    return this.pending.length;
  }

  private open(): void {
    this.buffer = Buffer.alloc(0);
    const socket = connect(this.port, '127.0.0.1');
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    const lost = () => {
      if (this.socket !== socket) return;
      const n = this.pending.length;
      this.pending.length = 0;
      if (n) this.onLost(n);
      if (!this.closed) this.open();
    };
    socket.on('error', lost);
    socket.on('close', lost);
    this.socket = socket;
  }

  send(request: Buffer, scheduledAt: number): void {
    this.pending.push(scheduledAt);
    this.socket.write(request);
  }

  close(): void {
    this.closed = true;
    const n = this.pending.length;
    this.pending.length = 0;
    if (n) this.onLost(n);
    this.socket.destroy();
  }

  /** Parses as many complete responses as the buffer holds (Content-Length or chunked bodies). */
  private read(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      const headEnd = this.buffer.indexOf('\r\n\r\n');
      if (headEnd === -1) return;
      const head = this.buffer.toString('latin1', 0, headEnd);
      const status = Number(head.slice(9, 12));
      let end: number;
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
      if (length) {
        end = headEnd + 4 + Number(length[1]);
        if (this.buffer.length < end) return;
      } else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
        let at = headEnd + 4;
        let done = false;
        for (;;) {
          const lineEnd = this.buffer.indexOf('\r\n', at);
          if (lineEnd === -1) break;
          const size = parseInt(this.buffer.toString('latin1', at, lineEnd), 16);
          if (size === 0) {
            if (this.buffer.length < lineEnd + 4) break;
            at = lineEnd + 4;
            done = true;
            break;
          }
          if (this.buffer.length < lineEnd + 2 + size + 2) break;
          at = lineEnd + 2 + size + 2;
        }
        if (!done) return;
        end = at;
      } else {
        end = headEnd + 4;
      }
      this.buffer = this.buffer.subarray(end);
      const scheduledAt = this.pending.shift();
      if (scheduledAt !== undefined) this.onResponse(status, scheduledAt);
    }
  }
}

/** Requests offered open loop at a fixed rate (the sending half of the overload, and the bench's fixed-rate levels). */
export interface OfferOptions {
  /** http://host:port */
  baseUrl: string;
  path: string;
  headers: Record<string, string>;
  /** The next request body (each request gets its own). */
  nextBody: () => Buffer;
  /** Offered requests per second. */
  rate: number;
  /** Seconds. */
  duration: number;
  connections: number;
  /** The client never has more than this many requests outstanding (it sheds the rest itself). */
  maxInFlight: number;
  /** Longest wait for the outstanding answers after the last send, seconds. */
  drainTimeout: number;
  sampler?: RssSampler;
  /** The sampler's phase name while sending. */
  phase?: string;
}

export interface OfferResult {
  seconds: number;
  sent: number;
  answered: number;
  statuses: Record<string, number>;
  lost: number;
  clientShed: number;
  accepted: Samples;
  refused: Samples;
  /** Seconds from the last send until every outstanding request was answered (or given up). */
  drainSeconds: number;
}

interface Offering {
  stoppedAt: number;
  /** Resolves once nothing is outstanding (or at the deadline), with the seconds since the last send; closes the connections. */
  drained(deadline: number): Promise<number>;
  result(drainSeconds: number): OfferResult;
}

async function startOffer(options: OfferOptions): Promise<Offering> {
  const url = new URL(options.baseUrl);
  const port = Number(url.port);
  const head = Object.entries({ host: url.host, ...options.headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const request = (body: Buffer) =>
    Buffer.concat([Buffer.from(`POST ${options.path} HTTP/1.1\r\n${head}content-length: ${body.length}\r\n\r\n`, 'latin1'), body]);
  const statuses: Record<string, number> = {};
  const accepted = new Samples();
  const refused = new Samples();
  let answered = 0;
  let lost = 0;
  let inFlight = 0;
  const onResponse = (status: number, scheduledAt: number) => {
    const latency = performance.now() - scheduledAt;
    answered++;
    inFlight--;
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (status >= 200 && status < 300) accepted.add(latency);
    else if (status === 503 || status === 429) refused.add(latency);
  };
  const onLost = (count: number) => {
    lost += count;
    inFlight -= count;
  };
  const connections = Array.from({ length: options.connections }, () => new PipelinedConnection(port, onResponse, onLost));
  await sleep(200); // let the connections open

  if (options.phase) options.sampler?.mark(options.phase);
  const start = performance.now();
  const end = start + options.duration * 1000;
  let sent = 0;
  let shed = 0;
  let next = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      const until = Math.min(now, end);
      const due = Math.floor(((until - start) / 1000) * options.rate);
      while (sent + shed < due) {
        const scheduledAt = start + ((sent + shed) / options.rate) * 1000;
        if (inFlight >= options.maxInFlight) {
          shed++;
          continue;
        }
        const connection = connections[next++ % connections.length];
        connection.send(request(options.nextBody()), scheduledAt);
        inFlight++;
        sent++;
      }
      if (now >= end) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
  const stoppedAt = performance.now();
  return {
    stoppedAt,
    drained: async (deadline: number) => {
      while (inFlight > 0 && performance.now() < deadline) await sleep(5);
      const seconds = (performance.now() - stoppedAt) / 1000;
      for (const connection of connections) connection.close();
      return seconds;
    },
    result: (drainSeconds: number) => ({
      seconds: (stoppedAt - start) / 1000,
      sent,
      answered,
      statuses: { ...statuses },
      lost,
      clientShed: shed,
      accepted,
      refused,
      drainSeconds,
    }),
  };
}

/** Offers requests open loop at `rate` for `duration` seconds and waits for the answers. */
export async function offer(options: OfferOptions): Promise<OfferResult> {
  const offering = await startOffer(options);
  const drainSeconds = await offering.drained(offering.stoppedAt + options.drainTimeout * 1000);
  return offering.result(drainSeconds);
}

/** Answers by kind: 2xx, refusals (503, 429), other 5xx, anything else. */
export function tally(statuses: Record<string, number>): {
  accepted: number;
  refused: number;
  otherServerErrors: number;
  otherStatuses: Record<string, number>;
} {
  let accepted = 0;
  let refused = 0;
  let otherServerErrors = 0;
  const otherStatuses: Record<string, number> = {};
  for (const [status, count] of Object.entries(statuses)) {
    const code = Number(status);
    if (code >= 200 && code < 300) accepted += count;
    else if (code === 503 || code === 429) refused += count;
    else {
      otherStatuses[status] = count;
      if (code >= 500) otherServerErrors += count;
    }
  }
  return { accepted, refused, otherServerErrors, otherStatuses };
}

export interface OverloadOptions {
  baseUrl: string;
  key: string;
  /** The next POST /v1/events body. */
  nextBody: () => Buffer;
  /** Offered requests per second. */
  rate: number;
  /** Seconds. */
  duration: number;
  connections: number;
  /** The client never has more than this many requests outstanding (it sheds the rest itself). */
  maxInFlight: number;
  /** The latency (ms) a request must be answered within to count as recovered: the normal p99. */
  normalP99: number;
  /** Longest wait for recovery and for outstanding answers, seconds. */
  recoveryTimeout: number;
  sampler?: RssSampler;
}

export interface OverloadResult {
  offeredRate: number;
  sentRate: number;
  seconds: number;
  sent: number;
  answered: number;
  accepted: number;
  /** 503 and 429 answers. */
  refused: number;
  refusedShare: number;
  /** 5xx answers other than 503: should be none. */
  otherServerErrors: number;
  otherStatuses: Record<string, number>;
  /** Requests whose connection failed before an answer (resets, closes) or that were never answered. */
  lost: number;
  /** Requests the client did not send because maxInFlight were already outstanding. */
  clientShed: number;
  acceptedLatency: { p50: number; p99: number; max: number; n: number };
  refusedLatency: { p50: number; p99: number; max: number; n: number };
  peakRssMB: number;
  /** Seconds from the end of the overload until a request got a 202 within the normal p99 (NaN: never). */
  recoverySeconds: number;
  /** Seconds until every outstanding request was answered (or given up). */
  drainSeconds: number;
}

export async function measureOverload(options: OverloadOptions): Promise<OverloadResult> {
  const port = Number(new URL(options.baseUrl).port);
  const offering = await startOffer({
    baseUrl: options.baseUrl,
    path: '/v1/events',
    headers: { authorization: `Bearer ${options.key}`, 'content-type': 'application/json' },
    nextBody: options.nextBody,
    rate: options.rate,
    duration: options.duration,
    connections: options.connections,
    maxInFlight: options.maxInFlight,
    drainTimeout: options.recoveryTimeout,
    sampler: options.sampler,
    phase: 'overload',
  });
  const stoppedAt = offering.stoppedAt;
  options.sampler?.mark('overload-recovery');

  // Recovery: one request at a time on a fresh keep-alive connection, every 20 ms.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const probe = () =>
    new Promise<{ status: number; ms: number }>((resolve) => {
      const probeBody = options.nextBody();
      const t0 = performance.now();
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/v1/events',
          method: 'POST',
          agent,
          headers: { authorization: `Bearer ${options.key}`, 'content-type': 'application/json', 'content-length': probeBody.length },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }));
        },
      );
      req.setTimeout(options.recoveryTimeout * 1000, () => req.destroy());
      req.on('error', () => resolve({ status: 0, ms: performance.now() - t0 }));
      req.end(probeBody);
    });
  let recoverySeconds = Number.NaN;
  const recoveryDeadline = stoppedAt + options.recoveryTimeout * 1000;
  const recovery = (async () => {
    while (performance.now() < recoveryDeadline) {
      const { status, ms } = await probe();
      if (status === 202 && ms <= options.normalP99) {
        recoverySeconds = (performance.now() - stoppedAt) / 1000;
        return;
      }
      await sleep(20);
    }
  })();
  const [, drainSeconds] = await Promise.all([recovery, offering.drained(recoveryDeadline)]);
  agent.destroy();
  options.sampler?.mark('after-overload');

  const offered = offering.result(drainSeconds);
  const counts = tally(offered.statuses);
  return {
    offeredRate: options.rate,
    sentRate: offered.sent / offered.seconds,
    seconds: offered.seconds,
    sent: offered.sent,
    answered: offered.answered,
    accepted: counts.accepted,
    refused: counts.refused,
    refusedShare: offered.answered ? counts.refused / offered.answered : 0,
    otherServerErrors: counts.otherServerErrors,
    otherStatuses: counts.otherStatuses,
    lost: offered.lost,
    clientShed: offered.clientShed,
    acceptedLatency: offered.accepted.summary(),
    refusedLatency: offered.refused.summary(),
    peakRssMB: Math.max(options.sampler?.peak('overload') ?? Number.NaN, options.sampler?.peak('overload-recovery') ?? Number.NaN),
    recoverySeconds,
    drainSeconds,
  };
}
