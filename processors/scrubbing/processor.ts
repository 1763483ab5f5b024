// Scrubs every item before anything later in the pipeline (or any exporter) sees it, with the
// options of the item's project: the YAML's, overridden by the project's `data_scrubbing`.
import type { Processor } from '../../src/engine/component.js';
import type { Item, Signal } from '../../src/engine/item.js';
import { recordItems } from '../../src/engine/item.js';
import { mergeScrubbing, type DataScrubbing, type ScrubbingOptions } from '../../src/records/data-scrubbing.js';
import type { Project } from '../../extensions/catalog/catalog.js';
import { scrubReplay } from './replay.js';
import { Scrubber } from './scrubber.js';
import { scrubEvent, scrubSpan, type CleanResources } from './signals.js';

/** Where the processor finds a project's settings (the catalog; a fixed answer in benches). */
export interface ProjectSettings {
  project(id: string): Promise<Project | undefined>;
}

export class ScrubbingProcessor implements Processor {
  /** Compiled per project; recompiled when the catalog hands out a changed project. */
  private readonly compiled = new Map<string, { settings: DataScrubbing | null | undefined; scrubber: Scrubber }>();

  constructor(
    private readonly signal: Signal,
    private readonly options: ScrubbingOptions,
    private readonly projects: ProjectSettings | undefined,
  ) {}

  async process(items: Item[]): Promise<void> {
    const scrubbers = new Map<string, Scrubber>();
    for (const item of items) {
      const projectId = item.tenant.projectId;
      if (!scrubbers.has(projectId)) scrubbers.set(projectId, await this.scrubberFor(projectId));
    }
    const scrub = (projectId: string) => scrubbers.get(projectId) as Scrubber;
    switch (this.signal) {
      case 'events':
        for (const item of recordItems('events', items)) scrubEvent(item.data, scrub(item.tenant.projectId));
        break;
      case 'traces': {
        const clean: CleanResources = new WeakMap();
        for (const item of recordItems('traces', items)) scrubSpan(item.data, scrub(item.tenant.projectId), clean);
        break;
      }
      case 'replays':
        for (const item of recordItems('replays', items)) scrubReplay(item.data, scrub(item.tenant.projectId));
        break;
    }
  }

  private async scrubberFor(projectId: string): Promise<Scrubber> {
    const settings = (await this.projects?.project(projectId))?.data_scrubbing;
    const cached = this.compiled.get(projectId);
    if (cached && cached.settings === settings) return cached.scrubber;
    const scrubber = new Scrubber(mergeScrubbing(this.options, settings), projectId);
    this.compiled.set(projectId, { settings, scrubber });
    return scrubber;
  }
}
