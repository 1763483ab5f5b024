// Ruby frame labels, version 3: Ruby 3.4 qualifies methods with their class (`Order#apply_discount`,
// `Order.find_active`) where 3.3 said `apply_discount`, and wraps both in `block in`, `block (2
// levels) in`, `rescue in`, `ensure in`; Rails names compiled templates with per-process numbers.
import { memoize } from '../memo.js';

const LONGEST = 512;
/** `block in`, `block (2 levels) in`, `rescue in`, `ensure in`: what part of the method the frame is. */
const WRAPPER = /^(block|rescue|ensure)(?: \(\d{1,4} levels\))? in /;
/** Rails' compiled template methods: `_app_views_invoices_show_html_erb___2716304843926735316_23540`. */
const TEMPLATE_NUMBERS = /(?:_{1,3}-?\d{1,25}){1,3}$/;

/** `block in Order#apply_discount` and `block in apply_discount` -> `apply_discount{block}`; `Order.find_active` -> `find_active`. */
function normalizeRubyFunctionNow(name: string): string {
  let fn = name.trim().slice(0, LONGEST);
  const wrapper = WRAPPER.exec(fn);
  if (wrapper) fn = fn.slice(wrapper[0].length);
  // The method name is what follows the class's `#` or `.` (`Foo::Bar.baz`); `<main>` and `<class:Foo>` stay.
  if (!fn.startsWith('<')) {
    const cut = Math.max(fn.lastIndexOf('#'), fn.lastIndexOf('.'));
    if (cut >= 0 && cut < fn.length - 1) fn = fn.slice(cut + 1);
  }
  if (fn.startsWith('_app_views_') || fn.startsWith('__')) fn = fn.replace(TEMPLATE_NUMBERS, '');
  return wrapper ? `${fn}{${wrapper[1]}}` : fn;
}

export const normalizeRubyFunction: (name: string) => string = memoize(normalizeRubyFunctionNow);
