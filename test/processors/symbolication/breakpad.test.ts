// Breakpad symbolication on a hand-written .sym file in the published format (MODULE, INFO, FILE,
// INLINE_ORIGIN, FUNC with line and INLINE records, PUBLIC, STACK CFI).
import { afterAll, describe, expect, it } from 'vitest';
import type { StackFrame } from '../../../src/records/event.js';
import { breakpadId } from '../../../processors/symbolication/artifacts.js';
import { BreakpadSymbols } from '../../../processors/symbolication/breakpad.js';
import { WorkerPool } from '../../../processors/symbolication/pool.js';
import { InMemoryArtifacts, makeEvent, processorsShutDownAfterEach, SCOPE, symbolicate } from './helpers.js';

// main (main.cc) inlines shop::Cart::total() (cart.h) at main.cc:42, which inlines
// shop::format_price(double) (price.h) at cart.h:17.
const SYM = `MODULE Linux x86_64 6EDC6ACDB282125843FD59DA9C81BD830 libshop.so
INFO CODE_ID CD6ADC6E82B25812843FD59DA9C81BD83A5F2C11
FILE 0 /build/shop/src/main.cc
FILE 1 /build/shop/src/cart.h
FILE 2 /build/shop/src/price.h
INLINE_ORIGIN 0 shop::Cart::total() const
INLINE_ORIGIN 1 shop::format_price(double)
FUNC 1000 80 0 main
INLINE 0 42 0 0 1010 30
INLINE 1 17 1 1 1018 10
1000 10 40 0
1010 8 16 1
1018 10 9 2
1028 18 17 1
1040 40 45 0
FUNC m 2000 20 8 shop::checkout(int)
2000 20 60 0
PUBLIC 3000 0 shop_export_symbol
PUBLIC m 3100 0 another_export
STACK CFI INIT 1000 80 .cfa: $rsp 8 + .ra: .cfa -8 + ^
STACK CFI 1001 .cfa: $rsp 16 +
`;
const MODULE_ID = '6edc6acdb282125843fd59da9c81bd830';

const pool = new WorkerPool(1);
afterAll(() => pool.close());

async function symbols(text = SYM): Promise<BreakpadSymbols> {
  const bytes = Buffer.from(text);
  return new BreakpadSymbols(await pool.run('breakpad', bytes), bytes);
}

describe('BreakpadSymbols', () => {
  it('reads the MODULE record', async () => {
    expect((await symbols()).index.module).toEqual({ os: 'Linux', arch: 'x86_64', id: '6EDC6ACDB282125843FD59DA9C81BD830', name: 'libshop.so' });
  });

  it('resolves an address to its FUNC and line record', async () => {
    const s = await symbols();
    expect(s.lookup(0x1004)).toEqual([{ function: 'main', filename: '/build/shop/src/main.cc', lineno: 40 }]);
    expect(s.lookup(0x1050)).toEqual([{ function: 'main', filename: '/build/shop/src/main.cc', lineno: 45 }]);
    expect(s.lookup(0x201f)).toEqual([{ function: 'shop::checkout(int)', filename: '/build/shop/src/main.cc', lineno: 60 }]);
  });

  it('expands INLINE records into frames, outermost first, each at the call site of the next', async () => {
    const s = await symbols();
    expect(s.lookup(0x101c)).toEqual([
      { function: 'main', filename: '/build/shop/src/main.cc', lineno: 42 },
      { function: 'shop::Cart::total() const', filename: '/build/shop/src/cart.h', lineno: 17 },
      { function: 'shop::format_price(double)', filename: '/build/shop/src/price.h', lineno: 9 },
    ]);
    expect(s.lookup(0x1012)).toEqual([
      { function: 'main', filename: '/build/shop/src/main.cc', lineno: 42 },
      { function: 'shop::Cart::total() const', filename: '/build/shop/src/cart.h', lineno: 16 },
    ]);
    expect(s.lookup(0x1030)?.map((l) => `${l.function}:${l.lineno}`)).toEqual(['main:42', 'shop::Cart::total() const:17']);
  });

  it('falls back to PUBLIC records (a name only); nothing below the first record or past a FUNC', async () => {
    const s = await symbols();
    expect(s.lookup(0x3050)).toEqual([{ function: 'shop_export_symbol' }]);
    expect(s.lookup(0x3100)).toEqual([{ function: 'another_export' }]);
    expect(s.lookup(0x500)).toBeUndefined();
    expect(s.lookup(0x1090)).toBeUndefined();
  });

  it('reads the pre-2021 INLINE form (no call-site file)', async () => {
    const old = SYM.replace('INLINE 0 42 0 0 1010 30', 'INLINE 0 42 0 1010 30').replace('INLINE 1 17 1 1 1018 10', 'INLINE 1 17 1 1018 10');
    const s = await symbols(old);
    expect(s.lookup(0x101c)?.map((l) => [l.function, l.lineno, l.filename])).toEqual([
      ['main', 42, undefined],
      ['shop::Cart::total() const', 17, undefined],
      ['shop::format_price(double)', 9, '/build/shop/src/price.h'],
    ]);
  });

  it('refuses files that are not Breakpad symbols', async () => {
    await expect(symbols('ELF\u0001binary')).rejects.toThrow(/not a Breakpad symbol file/);
    await expect(symbols('MODULE Linux x86_64 ABC app\nFUNC zz 10 0 f\n')).rejects.toThrow(/line 2: "zz" is not a hexadecimal number/);
    await expect(symbols('MODULE Linux x86_64 ABC app\nWHAT 1\n')).rejects.toThrow(/line 2: an unknown record/);
  });

  it('debug ids: Sentry’s UUID-and-age form and the Breakpad form name the same file', () => {
    expect(breakpadId('6EDC6ACD-B282-1258-43FD-59DA9C81BD83-0')).toBe(MODULE_ID);
    expect(breakpadId('6edc6acd-b282-1258-43fd-59da9c81bd83')).toBe(MODULE_ID);
    expect(breakpadId('6EDC6ACDB282125843FD59DA9C81BD830')).toBe(MODULE_ID);
    expect(breakpadId('f1e853fd-6626-7204-4c4c-44205044422e-1a')).toBe('f1e853fd662672044c4c44205044422e1a');
  });
});

describe('native events', () => {
  const processor = processorsShutDownAfterEach();

  function setup(content: string | null = SYM) {
    const artifacts = new InMemoryArtifacts();
    if (content !== null) artifacts.add(SCOPE, { name: 'libshop.so.sym', type: 'breakpad', content, debug_id: MODULE_ID });
    const p = processor(artifacts);
    return p;
  }

  const image = {
    type: 'elf' as const,
    debug_id: '6edc6acd-b282-1258-43fd-59da9c81bd83-0',
    code_file: '/usr/lib/libshop.so',
    image_addr: '0x7f0000000000',
    image_size: 0x10000,
  };
  const nativeEvent = (frames: StackFrame[]) => makeEvent(frames, { platform: 'native', debug_meta: { images: [image] } });

  it('symbolicates frames in the image (callers at the return address minus one), expands inlines, keeps the raw frames', async () => {
    const frames: StackFrame[] = [
      { instruction_addr: '0x7f00deadbeef' }, // in no image: left alone
      { instruction_addr: '0x7f0000002011' }, // a caller: 0x2011 - 1 is in shop::checkout
      { instruction_addr: '0x7f000000101c' }, // the crashing frame: exact
    ];
    const raw = structuredClone(frames);
    const [event] = await symbolicate(setup(), nativeEvent(frames));
    expect(event.raw_stacktrace).toEqual(raw);
    expect(event.exception.stacktrace).toEqual([
      { instruction_addr: '0x7f00deadbeef' },
      { instruction_addr: '0x7f0000002011', function: 'shop::checkout(int)', module: 'libshop.so', filename: '/build/shop/src/main.cc', lineno: 60 },
      { instruction_addr: '0x7f000000101c', function: 'main', module: 'libshop.so', filename: '/build/shop/src/main.cc', lineno: 42 },
      { instruction_addr: '0x7f000000101c', function: 'shop::Cart::total() const', module: 'libshop.so', filename: '/build/shop/src/cart.h', lineno: 17 },
      { instruction_addr: '0x7f000000101c', function: 'shop::format_price(double)', module: 'libshop.so', filename: '/build/shop/src/price.h', lineno: 9 },
    ]);
    expect(event.processing_errors).toEqual([]);
  });

  it('frame_out_of_range for an address no record covers; paths point into the symbolicated frames', async () => {
    const [event] = await symbolicate(setup(), nativeEvent([{ instruction_addr: '0x7f000000101c' }, { instruction_addr: '0x7f0000000500' }]));
    // The first frame became three (inlines), so the unresolved one is now at index 3.
    expect(event.processing_errors).toEqual([
      {
        type: 'frame_out_of_range',
        path: 'exception.stacktrace[3]',
        message: '0x7f0000000500 (offset 0x500 in libshop.so) is in no FUNC or PUBLIC record of its symbol file',
      },
    ]);
  });

  it('missing_debug_file and malformed_debug_file name the module and its debug id', async () => {
    const [missing] = await symbolicate(setup(null), nativeEvent([{ instruction_addr: '0x7f000000101c' }]));
    expect(missing.processing_errors).toEqual([
      { type: 'missing_debug_file', path: 'exception.stacktrace[0]', message: `no Breakpad symbol file for libshop.so (${MODULE_ID})` },
    ]);
    expect(missing.raw_stacktrace).toBeUndefined();
    const [malformed] = await symbolicate(setup('garbage'), nativeEvent([{ instruction_addr: '0x7f000000101c' }]));
    expect(malformed.processing_errors).toEqual([
      {
        type: 'malformed_debug_file',
        path: 'exception.stacktrace[0]',
        message: `the Breakpad symbol file libshop.so.sym of libshop.so (${MODULE_ID}) could not be parsed: not a Breakpad symbol file: the first line is not a MODULE record`,
      },
    ]);
  });
});
