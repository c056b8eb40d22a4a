/** `npm run catalog`, first step: writes suites/catalog.ts from the scenario files on disk. */
import { writeFileSync } from 'node:fs';
import { CATALOG_FILE, renderCatalogModule, scenarioFiles } from './suites-catalog.ts';

const files = scenarioFiles();
writeFileSync(CATALOG_FILE, renderCatalogModule(files));
console.log(`wrote suites/catalog.ts (${files.length} scenario files)`);
