/**
 * CPU profiles of the servers' thread during a measured run (BENCH_CPU_PROFILE): written as `.cpuprofile` files
 * (Chrome DevTools, VS Code) and summarised on stderr by where the time went (package, Node internal, our src/).
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import path from "node:path";
import { log } from "./harness.ts";

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber?: number };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Self time by where the code lives: a package, a Node.js internal, our src/, or a native function.
 * WebAssembly is charged to the package that called into it (Prisma's query compiler, PGlite).
 */
export function selfTimeByOrigin(profile: Profile): [string, number][] {
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, index) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  const parent = new Map<number, ProfileNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  const originOfUrl = (url: string) =>
    /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ??
    (url.startsWith("node:")
      ? `node:${url.slice(5).split("/")[0]}`
      : path.relative(process.cwd(), url.replace(/^file:\/\//, "")).split(path.sep).slice(0, 2).join("/"));
  const byOrigin = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    const { url, functionName } = node.callFrame;
    // The inspector's own work while the profile is being collected.
    if (!url && functionName === "dispatch") continue;
    total += us;
    let origin: string;
    if (url.startsWith("wasm://")) {
      let caller = parent.get(node.id);
      while (caller && (caller.callFrame.url.startsWith("wasm://") || !caller.callFrame.url)) caller = parent.get(caller.id);
      origin = `${caller ? originOfUrl(caller.callFrame.url) : "?"} (wasm)`;
    } else {
      origin = url ? originOfUrl(url) : functionName || "(native)";
    }
    byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + us);
  }
  return [...byOrigin.entries()].map(([origin, us]): [string, number] => [origin, us / total]).sort((a, b) => b[1] - a[1]);
}

/** Runs `run` under the profiler (when `file` is set); `functions` > 0 also lists that many hottest functions. */
export async function profiled<T>(file: string | null, run: () => Promise<T>, functions = 0): Promise<T> {
  if (!file) return run();
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  try {
    return await run();
  } finally {
    const { profile } = (await session.post("Profiler.stop")) as unknown as { profile: Profile };
    session.disconnect();
    writeFileSync(file, JSON.stringify(profile));
    const top = selfTimeByOrigin(profile).slice(0, 8);
    log(`    profile ${path.relative(process.cwd(), file)}: ${top.map(([origin, share]) => `${origin} ${(share * 100).toFixed(0)}%`).join(", ")}`);
    if (functions > 0) {
      const hottest = selfTimeByFunction(profile, functions);
      log(`      hottest functions: ${hottest.map(([name, share]) => `${name} ${(share * 100).toFixed(1)}%`).join(", ")}`);
    }
  }
}

/** The functions with the most self time (name and file:line), for the "what stands out" look at a run. */
export function selfTimeByFunction(profile: Profile, top = 12): [string, number][] {
  const byFunction = new Map<string, number>();
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  let total = 0;
  profile.samples.forEach((id, index) => {
    const node = nodes.get(id)!;
    const { url, functionName, lineNumber } = node.callFrame;
    if (!url && functionName === "dispatch") return;
    const us = profile.timeDeltas[index] ?? 0;
    total += us;
    const where = url ? `${/node_modules\/(.*)$/.exec(url)?.[1] ?? path.relative(process.cwd(), url.replace(/^file:\/\//, ""))}:${(lineNumber ?? 0) + 1}` : "";
    const key = `${functionName || "(anonymous)"} ${where}`.trim();
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  });
  return [...byFunction.entries()].map(([key, us]): [string, number] => [key, us / total]).sort((a, b) => b[1] - a[1]).slice(0, top);
}
