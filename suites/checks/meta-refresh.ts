/** A page that redirects by markup rather than by HTTP: <meta http-equiv="refresh" content="0; url=…">. */

/** The target of a meta refresh on a page, if any (absolute, against `base`). */
export function metaRefresh(html: string, base: string): string | undefined {
  for (const tag of html.match(/<meta\b[^>]*>/gi) ?? []) {
    if (!/http-equiv\s*=\s*["']?refresh/i.test(tag)) continue;
    const url = /content\s*=\s*["'][^"']*?url\s*=\s*['"]?([^"'>\s]+)/i.exec(tag)?.[1];
    if (url && URL.canParse(url, base)) return new URL(url, base).href;
  }
  return undefined;
}
