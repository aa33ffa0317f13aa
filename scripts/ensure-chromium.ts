import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { findChromium, installPlan, type InstallMethod } from "../test/support/chromium.ts";

/**
 * First step of `npm test`: make sure the browser tests have a Chromium. Uses the one found (CHROMIUM_PATH,
 * the system's, Playwright's cache); otherwise installs Debian's `chromium` when apt-get is there and may be
 * used, otherwise tries Playwright's browser download; when nothing works, fails with one line saying why.
 * Never lets the browser tests be skipped.
 */
const found = findChromium();
if (found) {
  console.log(`npm test: Chromium for the browser tests: ${found}`);
  process.exit(0);
}

const succeeded = (command: string, args: string[]) => spawnSync(command, args, { stdio: "ignore" }).status === 0;
const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
const plan = installPlan({
  chromiumPathSet: Boolean(process.env.CHROMIUM_PATH),
  aptGet: succeeded("sh", ["-c", "command -v apt-get"]),
  privileged: isRoot || succeeded("sudo", ["-n", "true"]),
});

const failures = [...plan.skipped];
const install: Record<InstallMethod, () => boolean> = {
  apt() {
    console.log("npm test: no Chromium found; installing Debian's chromium (apt-get)…");
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const run = (args: string[]) => {
      const [command, ...rest] = isRoot ? args : ["sudo", "-n", ...args];
      return spawnSync(command, rest, { stdio: "ignore", env }).status === 0;
    };
    const ok = run(["apt-get", "update", "-qq"]) && run(["apt-get", "install", "-y", "-qq", "chromium"]);
    if (!ok) failures.push("apt-get install chromium failed");
    return ok;
  },
  playwright() {
    console.log("npm test: no Chromium found; trying Playwright's browser download…");
    const cli = createRequire(import.meta.url).resolve("playwright-core/cli.js");
    const ok = spawnSync(process.execPath, [cli, "install", "chromium"], { stdio: "ignore" }).status === 0;
    if (!ok) failures.push("Playwright's browser download failed (its download host is not reachable from here?)");
    return ok;
  },
};

for (const method of plan.methods) {
  if (install[method]() && findChromium()) {
    console.log(`npm test: Chromium for the browser tests: ${findChromium()}`);
    process.exit(0);
  }
}
console.error(
  `npm test: no Chromium for the browser tests (${failures.join("; ")}): install one (apt-get install chromium) or set CHROMIUM_PATH to a Chromium or Chrome binary.`,
);
process.exit(1);
