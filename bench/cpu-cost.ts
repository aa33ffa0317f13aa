/**
 * CPU time per request of a measured run, read from Linux's /proc: the servers' thread (this process's main thread,
 * where the servers run, and on PGlite the database too) and all PostgreSQL server processes.
 *
 * Why: on these 2-core machines the load generator, Node and PostgreSQL share the CPUs, and throughput moves by
 * ±20 % between runs of the same code. CPU per request moves by a few per cent, and says on which side a gap is
 * (our thread or the database). The CPU profiles (BENCH_CPU_PROFILE) cannot say it: a thread preempted by
 * PostgreSQL on its core is sampled "in writev".
 *
 * Elsewhere than Linux every figure is null and the tables say "n/a".
 */
import { readdirSync, readFileSync } from "node:fs";

/** USER_HZ: /proc counts CPU time in these ticks, 100 per second on every Linux architecture Node runs on. */
const TICKS_PER_SECOND = 100;

export interface CpuSnapshot {
  /** utime + stime of this process's main thread, in ticks. */
  mainThread: number;
  /**
   * utime + stime of every process named `postgres` (the benchmark's database is the only busy one), in ticks, by
   * pid: a backend that ends during the run (a pool closing idle connections) must not take its past with it.
   */
  postgres: Map<string, number>;
}

export interface CpuPerRequest {
  /** Microseconds of the servers' thread per answered request. */
  mainThreadUs: number;
  /** Microseconds of PostgreSQL's processes per answered request (on PGlite, ≈ 0: it runs on the main thread). */
  postgresUs: number;
}

/** utime + stime (fields 14 and 15 of /proc/…/stat; the command name before them may hold spaces). */
function ticksOf(statPath: string): number {
  try {
    const fields = readFileSync(statPath, "utf8").split(") ")[1].split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0; // the process ended between listing and reading
  }
}

function postgresTicks(): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let name: string;
    try {
      name = readFileSync(`/proc/${entry}/comm`, "utf8").trim();
    } catch {
      continue;
    }
    if (name === "postgres") ticks.set(entry, ticksOf(`/proc/${entry}/stat`));
  }
  return ticks;
}

/** CPU ticks PostgreSQL spent between two snapshots: per process alive at the end (new ones from zero). */
function postgresDelta(before: Map<string, number>, after: Map<string, number>): number {
  let total = 0;
  for (const [pid, ticks] of after) total += Math.max(0, ticks - (before.get(pid) ?? 0));
  return total;
}

export function cpuSnapshot(): CpuSnapshot | null {
  if (process.platform !== "linux") return null;
  return { mainThread: ticksOf(`/proc/self/task/${process.pid}/stat`), postgres: postgresTicks() };
}

export function cpuPerRequest(before: CpuSnapshot | null, after: CpuSnapshot | null, requests: number): CpuPerRequest | null {
  if (!before || !after || requests <= 0) return null;
  const us = (ticks: number) => (ticks * 1_000_000) / TICKS_PER_SECOND / requests;
  return { mainThreadUs: us(after.mainThread - before.mainThread), postgresUs: us(postgresDelta(before.postgres, after.postgres)) };
}

/** The median of each figure over runs (null when none was measured). */
export function medianCpu(values: readonly (CpuPerRequest | null)[]): CpuPerRequest | null {
  const known = values.filter((value): value is CpuPerRequest => value !== null);
  if (known.length === 0) return null;
  const median = (numbers: number[]) => {
    const sorted = [...numbers].sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  };
  return { mainThreadUs: median(known.map((c) => c.mainThreadUs)), postgresUs: median(known.map((c) => c.postgresUs)) };
}

/** "main 183 µs, postgres 641 µs" (per request), or "n/a". */
export function formatCpu(cpu: CpuPerRequest | null): string {
  return cpu ? `main ${cpu.mainThreadUs.toFixed(0)} µs, postgres ${cpu.postgresUs.toFixed(0)} µs` : "n/a";
}
