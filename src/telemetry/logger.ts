import { pino, type Logger } from 'pino';

/** JSON logs on stderr, so stdout stays for what commands print (keys, summaries). */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'faultline' } }, pino.destination(2));
}
