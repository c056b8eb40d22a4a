// Loaded with `node --import` into the CLI child of a hostile test: on exit, writes the process's
// peak resident set size (KiB) to the file HOSTILE_RSS_FILE names. Not part of the product.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  if (process.env.HOSTILE_RSS_FILE) writeFileSync(process.env.HOSTILE_RSS_FILE, String(process.resourceUsage().maxRSS));
});
