// Errors the engine raises towards receivers, which translate them into their protocol's refusal.

/** The pipeline is past its in-flight budget: the sender should retry later. */
export class OverloadedError extends Error {
  constructor(
    readonly pipeline: string,
    readonly retryAfterSeconds = 1,
  ) {
    super(`pipeline ${pipeline} is over its in-flight budget`);
    this.name = 'OverloadedError';
  }
}

/** What an exporter throws when its backend is down for a while (a broker outage): how long senders should wait. */
export class UnavailableError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = 'UnavailableError';
  }
}

/** What a sender is told to wait after a failed export whose exporter gave no advice. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

/** An exporter could not make the items durable; nothing was acknowledged. */
export class ExportError extends Error {
  /** The Retry-After senders get: the exporter's advice (UnavailableError), else DEFAULT_RETRY_AFTER_SECONDS. */
  readonly retryAfterSeconds: number;

  constructor(
    readonly exporter: string,
    cause: unknown,
  ) {
    super(`exporter ${exporter} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'ExportError';
    this.retryAfterSeconds = cause instanceof UnavailableError ? cause.retryAfterSeconds : DEFAULT_RETRY_AFTER_SECONDS;
  }
}

/** The service is shutting down and takes nothing new. */
export class ShuttingDownError extends Error {
  constructor() {
    super('the service is shutting down');
    this.name = 'ShuttingDownError';
  }
}
