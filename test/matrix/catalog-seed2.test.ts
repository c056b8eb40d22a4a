/** The planted-flaw matrix (test/matrix/flaw-matrix.ts), second seed: the properties draw other values. */
import { registerFlawMatrix } from './flaw-matrix.ts';

registerFlawMatrix(7);
