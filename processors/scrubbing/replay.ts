// Replay segments: rrweb events carry what the user saw and typed. Browsers may record without
// masking, so before the segment is stored its input values (and, with mask_all_text, its text
// nodes) are masked here the way rrweb's own masking does it (each non-space character becomes
// `*`); then every string of the events goes through the scrubber like an event's.
import type { ReplaySegment } from '../../src/records/replay.js';
import type { Scrubber } from './scrubber.js';

// rrweb's serialized node types (`NodeType` in rrweb-snapshot) and incremental sources.
const ELEMENT = 2;
const TEXT = 3;
const INCREMENTAL = 3;
const FULL_SNAPSHOT = 2;
const MUTATION = 0;
const INPUT = 5;

const INPUT_TAGS = new Set(['input', 'textarea', 'select', 'option']);
const CODE_TAGS = new Set(['script', 'style']);
/** The longest rrweb node chain walked (validation caps nesting too). */
const MAX_DEPTH = 512;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function mask(text: string): string {
  return text.replace(/\S/g, '*');
}

/** Scrubs a segment in place: its events (re-serialized when anything changed), URLs and user; notes go to processing_errors. */
export function scrubReplay(segment: ReplaySegment, scrubber: Scrubber): void {
  scrubber.begin();
  let events: unknown;
  try {
    events = JSON.parse(segment.events_json);
  } catch {
    return; // validation produced it: it parses
  }
  const masker = new Masker(scrubber);
  if (Array.isArray(events)) events.forEach((event, i) => scrubber.within('events', () => scrubber.within(i, () => masker.event(event))));
  const holder = { events };
  scrubber.field(holder, 'events');
  scrubber.field(segment, 'urls');
  scrubber.field(segment, 'user');
  const scrubbed = scrubber.scrubbed();
  if (scrubbed.length === 0) return;
  segment.events_json = JSON.stringify(holder.events);
  segment.raw_bytes = Buffer.byteLength(segment.events_json);
  for (const { path, rule } of scrubbed) segment.processing_errors.push({ type: 'scrubbed', path, message: `scrubbed by ${rule}` });
}

/** Masks inputs and text of rrweb events in place, knowing each node's element from the snapshots and mutations seen before. */
class Masker {
  /** Element tag by node id, and each text node's parent tag: mutations name nodes by id. */
  private readonly tags = new Map<number, string>();

  constructor(private readonly scrubber: Scrubber) {}

  event(event: unknown): void {
    if (!isObject(event) || !isObject(event.data)) return;
    const data = event.data;
    if (event.type === FULL_SNAPSHOT && isObject(data.node))
      this.scrubber.within('data', () => this.scrubber.within('node', () => this.node(data.node as Json, '', 0)));
    if (event.type !== INCREMENTAL) return;
    this.scrubber.within('data', () => {
      if (data.source === INPUT && typeof data.text === 'string' && this.scrubber.maskAllInputs && data.text !== '') {
        data.text = mask(data.text);
        this.scrubber.note('mask_all_inputs', 'text');
      }
      if (data.source !== MUTATION) return;
      if (Array.isArray(data.adds))
        data.adds.forEach((add: unknown, i) => {
          if (!isObject(add) || !isObject(add.node)) return;
          const parent = typeof add.parentId === 'number' ? (this.tags.get(add.parentId) ?? '') : '';
          this.scrubber.within('adds', () => this.scrubber.within(i, () => this.scrubber.within('node', () => this.node(add.node as Json, parent, 0))));
        });
      if (Array.isArray(data.texts))
        data.texts.forEach((change: unknown, i) => {
          if (!isObject(change) || typeof change.value !== 'string' || change.value === '') return;
          const parent = typeof change.id === 'number' ? (this.tags.get(change.id) ?? '') : '';
          if (this.masksText(parent)) {
            change.value = mask(change.value);
            this.scrubber.within('texts', () => this.scrubber.note(this.textRule(parent), i));
          }
        });
      if (Array.isArray(data.attributes))
        data.attributes.forEach((change: unknown, i) => {
          if (!isObject(change) || !isObject(change.attributes)) return;
          const tag = typeof change.id === 'number' ? this.tags.get(change.id) : undefined;
          // An element not seen yet may be an input: its value is masked.
          if (this.scrubber.maskAllInputs && (tag === undefined || INPUT_TAGS.has(tag)) && this.maskValue(change.attributes))
            this.scrubber.within('attributes', () => this.scrubber.note('mask_all_inputs', i));
        });
    });
  }

  private node(node: Json, parentTag: string, depth: number): void {
    if (depth > MAX_DEPTH) return;
    const id = typeof node.id === 'number' ? node.id : undefined;
    if (node.type === TEXT) {
      if (id !== undefined) this.tags.set(id, parentTag);
      if (typeof node.textContent === 'string' && node.textContent !== '' && this.masksText(parentTag)) {
        node.textContent = mask(node.textContent);
        this.scrubber.note(this.textRule(parentTag), 'textContent');
      }
      return;
    }
    const tag = node.type === ELEMENT && typeof node.tagName === 'string' ? node.tagName.toLowerCase() : parentTag;
    if (node.type === ELEMENT && id !== undefined) this.tags.set(id, tag);
    if (node.type === ELEMENT && isObject(node.attributes)) {
      const attributes = node.attributes;
      const isPassword = typeof attributes.type === 'string' && attributes.type.toLowerCase() === 'password';
      if (INPUT_TAGS.has(tag) && (this.scrubber.maskAllInputs || isPassword) && this.maskValue(attributes)) this.scrubber.note('mask_all_inputs', 'attributes');
    }
    if (Array.isArray(node.childNodes))
      node.childNodes.forEach((child: unknown, i) => {
        if (isObject(child)) this.scrubber.within('childNodes', () => this.scrubber.within(i, () => this.node(child, tag, depth + 1)));
      });
  }

  /** Text under an input-like element is its value (a textarea's, an option's label); other text is masked with mask_all_text. */
  private masksText(parentTag: string): boolean {
    if (CODE_TAGS.has(parentTag)) return false;
    return INPUT_TAGS.has(parentTag) ? this.scrubber.maskAllInputs : this.scrubber.maskAllText;
  }

  private textRule(parentTag: string): string {
    return INPUT_TAGS.has(parentTag) ? 'mask_all_inputs' : 'mask_all_text';
  }

  private maskValue(attributes: Json): boolean {
    if (typeof attributes.value !== 'string' || attributes.value === '') return false;
    attributes.value = mask(attributes.value);
    return true;
  }
}
