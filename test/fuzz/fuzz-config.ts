// Settings shared by the property-based (fuzz) tests. A fixed seed by default, so that `npm test`
// is reproducible; `npm run fuzz` runs many more cases with a random seed, printed so that a
// failure can be replayed: FUZZ_SEED=<seed> FUZZ_RUNS=<runs> npx vitest run test/fuzz.
import fc from 'fast-check';

const seedText = process.env.FUZZ_SEED;
export const FUZZ_SEED = seedText === undefined ? 42 : seedText === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(seedText);
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 200);

fc.configureGlobal({ seed: FUZZ_SEED, numRuns: FUZZ_RUNS, baseSize: 'small' });
if (seedText === 'random') console.log(`fuzz: seed ${FUZZ_SEED}, ${FUZZ_RUNS} runs (replay with FUZZ_SEED=${FUZZ_SEED})`);

/** The tests of a fuzz file may take as long as their runs need. */
export const FUZZ_TIMEOUT_MS = Math.max(30_000, FUZZ_RUNS * 20);

/** Values JSON bodies carry, and a few only the decoders make (bigints), with odd strings and numbers in good measure. */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(null, '', ' ', '\u0000', '\ud800', '💥', '__proto__', 'NaN', -0, 1e308, -1, 2 ** 53, 2 ** 63, 2 ** 64, 1.5, 5e16, 9.3e18),
  fc.bigInt({ min: -(2n ** 65n), max: 2n ** 65n }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.stringMatching(/^\d{1,22}$/),
);

/**
 * A record whose every field is, most of the time, a good value, else an odd one; the fields
 * not `required` may be missing too. Keeps most records close enough to valid to go deep.
 */
export function mostlyValid(fields: Record<string, fc.Arbitrary<unknown>>, required: readonly string[] = []): fc.Arbitrary<Record<string, unknown>> {
  const mixed: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, good] of Object.entries(fields)) mixed[key] = fc.oneof({ arbitrary: good, weight: 19 }, { arbitrary: oddValue, weight: 1 });
  return fc.record(mixed, { requiredKeys: required.filter((key) => key in fields) });
}
