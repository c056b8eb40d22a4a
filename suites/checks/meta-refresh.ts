/** A page that redirects by markup rather than by HTTP: <meta http-equiv="refresh" content="0; url=…">. */
import { readPage } from '../../harness/scenario/scenario.ts';

/** The target of a meta refresh on a page, if any (absolute, against `base`); the page is read by the page reader. */
export function metaRefresh(html: string, base: string): string | undefined {
  for (const meta of readPage(html, base, 0).metas ?? []) {
    if (meta.httpEquiv !== 'refresh') continue;
    // The content's value: a delay, then `url=` and the URL, quoted or not (HTML's shared declarative refresh).
    const url = /[;,]\s*url\s*=\s*['"]?([^'"\s]+)/i.exec(meta.content)?.[1];
    if (url && URL.canParse(url, base)) return new URL(url, base).href;
  }
  return undefined;
}
