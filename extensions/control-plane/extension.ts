// The control_plane extension: with service.control_plane.brokers set, the shared control plane
// (control-plane.ts) that replicates catalog, issue-status, alert-rule and artifact changes between
// nodes over a compacted Kafka topic; without brokers it runs nothing.
import type { Logger } from 'pino';
import type { Extension } from '../../src/engine/extension.js';
import { ControlPlane, type ControlPlaneConfig, type ControlStores } from './control-plane.js';

export class ControlPlaneExtension implements Extension {
  /** Set while it runs with brokers. */
  plane?: ControlPlane;

  constructor(
    private readonly config: ControlPlaneConfig,
    private readonly stores: ControlStores,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    if (!this.config.brokers.length) return;
    const plane = new ControlPlane(this.config, this.stores, this.logger);
    await plane.start();
    this.plane = plane;
  }

  async shutdown(): Promise<void> {
    await this.plane?.shutdown();
  }
}
