// Version 3: messages a runtime reworded between its versions, in one wording each (as
// engine-messages.ts does for JavaScript engines). Only the wording changes: the method and the
// key stay, so two different mistakes stay two issues.

const LONGEST = 4096;
type Rewrite = readonly [RegExp, (...groups: string[]) => string];

const REWRITES: readonly Rewrite[] = [
  // Ruby 3.2 `undefined method `name' for nil:NilClass`, 3.3 `… for nil`, 3.4 `undefined method 'name' for nil`.
  [/^undefined (method|local variable or method) [`']([^`'\s]{1,200})' for nil(?::NilClass)?$/, (what, name) => `undefined ${what} '${name}' for nil`],
  // Ruby 3.3+ `for an instance of Order`, earlier `for #<Order:0x000…>` (the object's inspection).
  [
    /^undefined (method|local variable or method) [`']([^`'\s]{1,200})' for (?:an instance of ([\w:]{1,200})|#<([\w:]{1,200})[:\s>].*)$/s,
    (what, name, instance, inspected) => `undefined ${what} '${name}' for an instance of ${instance ?? inspected}`,
  ],
  // Elixir: `key :sku not found in: %{…}`; since 1.16 the map on its own lines and a hint.
  [/^key (\S{1,200}) not found(?: in:?\s.*)?$/s, (key) => `key ${key} not found`],
];

/** One wording for messages a runtime words differently by version; others unchanged. */
export function canonicalRuntimeMessage(value: string): string {
  const text = value.length > LONGEST ? value.slice(0, LONGEST) : value;
  for (const [pattern, rewrite] of REWRITES) {
    const match = pattern.exec(text);
    if (match) return rewrite(...match.slice(1));
  }
  return value;
}
