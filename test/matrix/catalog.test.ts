/**
 * The planted-flaw matrix (test/matrix/flaw-matrix.ts), first seed; catalog-seed2.test.ts runs the second in parallel.
 */
import { registerFlawMatrix } from './flaw-matrix.ts';

registerFlawMatrix(20261122);
