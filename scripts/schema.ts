/**
 * Generates the JSON schemas from their zod definitions (one source of truth):
 * schema/target-config.schema.json and schema/report.schema.json. `npm run schema` writes them;
 * a test fails when the committed files are stale.
 */
import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { targetConfigSchema } from '../harness/config/schema.ts';
import { reportSchema } from '../reports/schema.ts';

export const SCHEMA_DIR = fileURLToPath(new URL('../schema/', import.meta.url));

export function schemaFiles(): Record<string, string> {
  const render = (schema: z.ZodType, title: string, io: 'input' | 'output') =>
    `${JSON.stringify({ title, ...z.toJSONSchema(schema, { io }) }, null, 2)}\n`;
  return {
    'target-config.schema.json': render(targetConfigSchema, 'idp-conformance target config', 'input'),
    'report.schema.json': render(reportSchema, 'idp-conformance report.json (schemaVersion 1)', 'output'),
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await mkdir(SCHEMA_DIR, { recursive: true });
  for (const [name, text] of Object.entries(schemaFiles())) {
    await writeFile(path.join(SCHEMA_DIR, name), text);
    console.log(`wrote schema/${name}`);
  }
}
