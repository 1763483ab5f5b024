// PHP function names, version 3: PHP 8.4 names a closure after where it is defined
// (`{closure:/var/www/releases/20250501…/routes/web.php:42}`, `Ns\{closure:Ns\Class::method():178}`),
// with the deploy's directory and a line that moves; 8.3 and earlier say `{closure}` (in a method,
// `Ns\Class::Ns\{closure}`). The frame's file already says where the closure is.

/** Any closure, any PHP version -> `{closure}`; other names unchanged. */
export function normalizePhpFunction(name: string): string {
  const fn = name.trim();
  return fn.includes('{closure') ? '{closure}' : fn;
}
