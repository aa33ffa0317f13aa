import { existsSync } from "node:fs";
import { chromium } from "playwright-core";

/**
 * Where the browser tests find Chromium (playwright-core drives it and never brings its own): CHROMIUM_PATH
 * when set, else the usual system binaries (Debian's `chromium` first), else the build Playwright's own
 * download puts in its cache. `npm test` runs scripts/ensure-chromium.ts first, which installs one when none
 * is found, so the browser tests are never skipped.
 */
export const SYSTEM_CHROMIUMS = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome-stable", "/usr/bin/google-chrome"];

export function playwrightChromium(): string | null {
  try {
    return chromium.executablePath();
  } catch {
    return null;
  }
}

export function findChromium(
  env: Record<string, string | undefined> = process.env,
  candidates: readonly string[] = [...SYSTEM_CHROMIUMS, playwrightChromium() ?? ""],
  exists: (path: string) => boolean = existsSync,
): string | null {
  if (env.CHROMIUM_PATH) return exists(env.CHROMIUM_PATH) ? env.CHROMIUM_PATH : null;
  return candidates.find((path) => path && exists(path)) ?? null;
}

export type InstallMethod = "apt" | "playwright";

export interface MachineFacts {
  /** CHROMIUM_PATH is set: the caller chose a browser, nothing is installed for it. */
  chromiumPathSet: boolean;
  aptGet: boolean;
  /** Root, or sudo without a password. */
  privileged: boolean;
}

/**
 * The ways to get a browser on this machine, in order: Debian's package where apt-get is there and may be
 * used, then Playwright's browser download (which needs its download host). Each way left out says why, so
 * that the one line printed when nothing works explains it.
 */
export function installPlan(facts: MachineFacts): { methods: InstallMethod[]; skipped: string[] } {
  if (facts.chromiumPathSet) return { methods: [], skipped: ["CHROMIUM_PATH is set but names no file"] };
  const methods: InstallMethod[] = [];
  const skipped: string[] = [];
  if (!facts.aptGet) skipped.push("no apt-get");
  else if (!facts.privileged) skipped.push("apt-get needs root or passwordless sudo");
  else methods.push("apt");
  methods.push("playwright");
  return { methods, skipped };
}

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
