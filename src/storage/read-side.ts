// The read side as a built-in extension (id `read_side`): the Storage over what the exporters
// stored exists only once they have started, after the pipelines are built, so components that
// rebuild state from stored items (alerting's windows, monitors) look it up when they need it.
import { optionalExtension, type Extension, type ExtensionLookup } from '../engine/extension.js';
import type { Storage } from './storage.js';

export const READ_SIDE_EXTENSION = 'read_side';

export class ReadSide implements Extension {
  /** Set by the service once the exporters serving reads have started. */
  storage?: Storage;
}

/** The read side, once the exporters have started; undefined before (and on a host without one). */
export function storageOf(host: ExtensionLookup): Storage | undefined {
  return optionalExtension(host, READ_SIDE_EXTENSION, ReadSide)?.storage;
}
