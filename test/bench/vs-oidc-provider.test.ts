/** The vs-oidc-provider bench's measures: CPU of a process group from /proc, the median of the rounds. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { median, processGroupCpuUs, ratioText } from '../../bench/vs-oidc-provider.ts';

/** A /proc/PID/stat line: pid (comm) state ppid pgrp session tty tpgid flags 4 fault counts utime stime … */
const stat = (pid: number, comm: string, pgrp: number, utime: number, stime: number) =>
  `${pid} (${comm}) S 1 ${pgrp} ${pgrp} 0 -1 4194560 10 0 0 0 ${utime} ${stime} 0 0 20 0 5 0\n`;

describe('vs-oidc-provider bench', () => {
  it('sums utime and stime of the processes in one process group, in microseconds', () => {
    const proc = mkdtempSync(join(tmpdir(), 'proc-'));
    const add = (pid: number, line: string) => {
      mkdirSync(join(proc, String(pid)));
      writeFileSync(join(proc, String(pid), 'stat'), line);
    };
    add(100, stat(100, 'node', 100, 250, 50));
    // A command name with spaces and a parenthesis: the fields are read after the last ')'.
    add(101, stat(101, 'a) b', 100, 7, 3));
    add(200, stat(200, 'node', 200, 999, 999));
    mkdirSync(join(proc, 'self'));
    expect(processGroupCpuUs(100, proc)).toBe(3_100_000);
    expect(processGroupCpuUs(300, proc)).toBe(0);
  });

  it('takes the median of the rounds', () => {
    expect(median([1.6, 1.2, 1.5])).toBe(1.5);
    expect(median([1, 2, 3, 4])).toBe(2.5);
  });

  it('prints a ratio rounded down, so that one under the target never reads as the target', () => {
    expect(ratioText(1.4966)).toBe('1.49');
    expect(ratioText(1.5)).toBe('1.50');
    expect(ratioText(1.567)).toBe('1.56');
    expect(ratioText(1.15)).toBe('1.15');
  });
});
