/**
 * `<app>@<version>`, split at the last `@` that has something on its left:
 * `@scope/pkg@1.2.3` is app `@scope/pkg`, version `1.2.3`. Undefined for other shapes (`nover`).
 */
export function parseRelease(release: string): { app: string; version: string } | undefined {
  const at = release.lastIndexOf('@');
  if (at <= 0 || at === release.length - 1) return undefined;
  return { app: release.slice(0, at), version: release.slice(at + 1) };
}
