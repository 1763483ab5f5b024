// End to end for the JVM and native code (issue #11): a real ProGuard mapping and the obfuscated
// trace its program printed (test/fixtures/proguard, made by make.sh), and a hand-written Breakpad
// symbol file (test/fixtures/breakpad: Debian has no dump_syms) for a small C library. The expected
// classes, methods, functions, files and lines come from the marked sources next to them.
/* eslint-disable @typescript-eslint/no-explicit-any -- JSON read back from the API is walked freely in assertions */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { parseStacktrace } from '../../connectors/exceptions/stacktrace-text.js';
import { startService, type TestService } from '../support/service.js';
import { markedSites, sitesOf } from '../support/app-source.js';
import { expectUploaded, roundTrip, uploadJson } from '../support/symbolication.js';

const FIXTURES = join(packageRoot, 'test/fixtures');
let svc: TestService;

beforeAll(async () => {
  svc = await startService();
});

afterAll(async () => {
  await svc?.stop();
});

/** An event of `platform` whose frames come from `images`. */
function eventOf(release: string, platform: string, exception: Record<string, unknown>, images: unknown[]): Record<string, unknown> {
  return { timestamp: new Date().toISOString(), environment: 'production', release, platform, exception, debug_meta: { images } };
}

describe('ProGuard', () => {
  const dir = join(FIXTURES, 'proguard');
  const trace = readFileSync(join(dir, 'trace.txt'), 'utf8');
  const sites = markedSites(join(dir, 'src'), ['.java']);
  /** `com/example/shop/Inventory.java` -> `com.example.shop.Inventory`. */
  const classOf = (file: string) =>
    file
      .replace(/\.java$/, '')
      .split('/')
      .join('.');

  it('deobfuscates classes, methods, lines and the exception type, and expands inlined frames', async () => {
    const bundle = await expectUploaded(
      uploadJson(svc.api, { project_id: 'default', release: 'shop-android@3.1.0' }, [{ name: 'mapping.txt', content: readFileSync(join(dir, 'mapping.txt')) }]),
    );
    expect(bundle.files).toHaveLength(1);
    const [mapping] = bundle.files;
    expect(mapping.type).toBe('proguard');
    expect(mapping.debug_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    const [header] = trace.split('\n');
    const colon = header.indexOf(': ');
    const frames = parseStacktrace(trace, 'java');
    // What the obfuscated program printed (oldest call first).
    expect(frames.map((frame) => `${frame.module}.${frame.function}:${frame.lineno}`)).toEqual([
      'com.example.shop.Main.main:10',
      'com.example.shop.c.a:15',
      'com.example.shop.c.b:1027',
    ]);
    const event = await roundTrip(
      svc.api,
      eventOf('shop-android@3.1.0', 'java', { type: header.slice(0, colon), value: header.slice(colon + 2), stacktrace: frames }, [
        { type: 'proguard', uuid: mapping.debug_id },
      ]),
    );

    // c.b:1027 is three frames: remaining() and take() were inlined into reserveAll().
    const expected = sitesOf(sites, ['main', 'placeOrder', 'reserveAll', 'take', 'remaining']);
    const got = (event.exception.stacktrace as any[]).map(({ module, function: fn, lineno, filename }) => ({ module, function: fn, lineno, filename }));
    expect(got, JSON.stringify(event.processing_errors)).toEqual(
      // The source file name ProGuard replaced with "SourceFile" comes back from the class name.
      expected.map((site) => ({ module: classOf(site.file), function: site.function, lineno: site.line, filename: basename(site.file) })),
    );
    const type = event.exception.module ? `${event.exception.module}.${event.exception.type}` : event.exception.type;
    expect(type).toBe('com.example.shop.OutOfStockException');
    expect(event.exception.value).toBe('out of stock: mug');
    expect(event.exception.raw_stacktrace).toEqual(frames);
    expect(event.processing_errors).toEqual([]);
  });

  it('without the mapping the frames stay obfuscated and the event says why', async () => {
    const frames = parseStacktrace(trace, 'java');
    const event = await roundTrip(
      svc.api,
      eventOf('shop-android@3.1.1', 'java', { type: 'com.example.shop.d', value: 'out of stock: mug', stacktrace: frames }, [
        { type: 'proguard', uuid: '8f2c1a52-7d3b-5e10-9a4c-6b1d2e3f4a5b' },
      ]),
    );
    expect(event.exception.stacktrace.map((frame: any) => `${frame.module}.${frame.function}:${frame.lineno}`)).toEqual(
      frames.map((frame) => `${frame.module}.${frame.function}:${frame.lineno}`),
    );
    expect(event.processing_errors.map((error: { type: string }) => error.type)).toEqual(['missing_proguard_mapping']);
    expect(event.exception.type).toBe('com.example.shop.d');
  });
});

describe('Breakpad', () => {
  // The .sym is hand-written after Breakpad's published symbol file format (MODULE, INFO, FILE,
  // INLINE_ORIGIN, FUNC with INLINE and line records, PUBLIC, STACK CFI): Debian ships no
  // dump_syms. It describes a build of src/*.c loaded at IMAGE.
  const dir = join(FIXTURES, 'breakpad');
  const sites = markedSites(join(dir, 'src'), ['.c', '.h']);
  const IMAGE = 0x7f3a1c200000;
  const address = (offset: number) => `0x${(IMAGE + offset).toString(16)}`;

  it('resolves native frames to functions, files and lines, with the inlined function as its own frame', async () => {
    const bundle = await expectUploaded(
      uploadJson(svc.api, { project_id: 'default', release: 'shop-native@2.0.0' }, [
        { name: 'libshop.so.sym', content: readFileSync(join(dir, 'libshop.so.sym')) },
      ]),
    );
    const [symbols] = bundle.files;
    expect(symbols.type).toBe('breakpad');
    expect(symbols.debug_id).toBe('5f1e7d3c2b4a69788796a5b4c3d2e1f00');

    // Oldest call first; the callers' addresses are return addresses (after their call).
    const frames = [
      { instruction_addr: address(0x11dc) }, // main
      { instruction_addr: address(0x1194) }, // checkout
      { instruction_addr: address(0x1134) }, // cart_total, in the inlined price_of
      { instruction_addr: address(0x1204) }, // shop_abort: a PUBLIC symbol only
    ];
    // Native SDKs send the debug id as a UUID and an age; the MODULE record writes the same
    // GUID's 32 hex digits followed by the age.
    const image = {
      type: 'elf',
      debug_id: '5f1e7d3c-2b4a-6978-8796-a5b4c3d2e1f0-0',
      code_file: '/usr/lib/libshop.so',
      image_addr: address(0),
      image_size: 0x2000,
    };
    const event = await roundTrip(svc.api, eventOf('shop-native@2.0.0', 'native', { type: 'SIGABRT', value: 'Abort trap', stacktrace: frames }, [image]));

    const got: any[] = event.exception.stacktrace;
    const expected = sitesOf(sites, ['main', 'checkout', 'cart_total', 'price_of']);
    expect(
      got.map((frame) => frame.function),
      JSON.stringify(got),
    ).toEqual([...expected.map((site) => site.function), 'shop_abort']);
    expected.forEach((site, index) => {
      // The FILE records name the files as the build machine saw them.
      expect(got[index].filename, JSON.stringify(got[index])).toBe(`/build/shop/src/${site.file}`);
      expect(got[index].lineno).toBe(site.line);
    });
    expect(got.every((frame) => frame.module === 'libshop.so')).toBe(true);
    // The inlined frame and its caller share the instruction.
    expect(got[2].instruction_addr).toBe(address(0x1134));
    expect(got[3].instruction_addr).toBe(address(0x1134));
    expect(got[4].lineno).toBeUndefined();
    expect(event.exception.raw_stacktrace).toEqual(frames);
    expect(event.processing_errors).toEqual([]);

    // An image whose symbols were never uploaded: frames kept, and the event says why.
    const other = { ...image, debug_id: '0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9-0' };
    const unknown = await roundTrip(svc.api, eventOf('shop-native@2.0.0', 'native', { type: 'SIGABRT', value: 'Abort trap', stacktrace: frames }, [other]));
    expect(unknown.exception.stacktrace).toEqual(frames);
    expect(unknown.processing_errors.map((error: { type: string }) => error.type)).toEqual(['missing_debug_file']);
  });
});
