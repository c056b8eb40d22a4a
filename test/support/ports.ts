/** A local port that nothing listens on (bound, then released): the harness's own helper, by the name tests use. */
export { unusedLoopbackPort as closedPort } from '../../harness/http/ports.ts';
