/**
 * Screenshots as evidence: saved under the report folder as screenshots/<scenario id>/NN-label.png
 * and named in the result by that relative path, so report.html beside them links them. Without a
 * report folder they go to a temporary folder and the path is absolute. A run starts by removing
 * the screenshots an earlier run wrote there (removeStaleScreenshots), so stale images never sit
 * beside fresh ones, and a scenario that took none this time shows none.
 */
import { mkdir, mkdtemp, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SCENARIO_ID } from '../scenario/scenario.ts';

export const SCREENSHOT_FOLDER = 'screenshots';

/** The name of a file `save` writes: NN-label.png. */
const SAVED_NAME = /^\d{2,}-[a-z0-9-]+\.png$/;

/**
 * At the start of a run: removes the screenshots an earlier run left in the report folder, so a
 * scenario that took none this time shows none. Only what `save` writes goes: NN-label.png files
 * in REPORT/screenshots/<scenario id>/, then those folders and screenshots/ itself if that left them
 * empty. Any other file (and anything a symbolic link points at) stays where it is.
 */
export async function removeStaleScreenshots(reportDir: string): Promise<void> {
  const root = join(reportDir, SCREENSHOT_FOLDER);
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isDirectory() || !SCENARIO_ID.test(entry.name)) continue;
    const folder = join(root, entry.name);
    const files = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const file of files)
      if (file.isFile() && SAVED_NAME.test(file.name)) await rm(join(folder, file.name), { force: true });
    await rmdir(folder).catch(() => undefined); // kept when something else is in it
  }
  await rmdir(root).catch(() => undefined);
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60) || 'page';

export class ScreenshotStore {
  readonly #reportDir: string | undefined;
  #root: Promise<string> | undefined;
  readonly #counts = new Map<string, number>();

  constructor(reportDir?: string) {
    this.#reportDir = reportDir;
  }

  /** Saves one PNG for a scenario; returns the path its evidence names. */
  async save(scenarioId: string, label: string, png: Uint8Array): Promise<string> {
    this.#root ??= this.#reportDir ? Promise.resolve(this.#reportDir) : mkdtemp(join(tmpdir(), 'idp-conformance-'));
    const folder = join(await this.#root, SCREENSHOT_FOLDER, scenarioId);
    const n = (this.#counts.get(scenarioId) ?? 0) + 1;
    this.#counts.set(scenarioId, n);
    await mkdir(folder, { recursive: true });
    const file = `${String(n).padStart(2, '0')}-${slug(label)}.png`;
    await writeFile(join(folder, file), png);
    return this.#reportDir ? `${SCREENSHOT_FOLDER}/${scenarioId}/${file}` : join(folder, file);
  }
}
