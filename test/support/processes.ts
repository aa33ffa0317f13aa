import { readFileSync } from "node:fs";
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { createTestDatabase, usingPostgres } from "./database.ts";

/** Child processes of the real entry points (`src/main.ts`, the `ocs` CLI), as an operator would run them. */
export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

/** Every variable src/config.ts reads: children get only what a test sets, never the developer's shell values. */
const CONFIG_VARIABLES = [
  "PORT", "HOST", "DATABASE_URL", "DATA_DIR", "REDIS_URL", "WHATSAPP_API_URL", "WHATSAPP_PHONE_NUMBER_ID",
  "WHATSAPP_ACCESS_TOKEN", "WHATSAPP_APP_SECRET", "WHATSAPP_VERIFY_TOKEN", "WHATSAPP_TEMPLATE_NAME",
  "WEBHOOK_RETRY_SCHEDULE", "WEBHOOK_TIMEOUT_MS", "WEBHOOK_ALLOW_PRIVATE_URLS", "WHATSAPP_TIMEOUT_MS",
  "RATE_LIMIT_MAX", "RATE_LIMIT_WINDOW", "LOG_LEVEL", "CONFIRMATION_MIN_DELAY", "WHATSAPP_REMINDER_TEMPLATE_NAME",
  "WHATSAPP_MAX_SENDS_PER_SECOND", "SESSION_IDLE_TIMEOUT", "SESSION_MAX_AGE", "COOKIE_SECURE",
  "CONSOLE_ORIGINS", "SIGN_IN_RATE_LIMIT_MAX", "SIGN_IN_RATE_LIMIT_MAX_PER_ADDRESS", "SIGN_IN_RATE_LIMIT_WINDOW",
  "SIGN_IN_RATE_LIMIT_MAX_PER_EMAIL", "DEMO", "METRICS_TOKEN", "SECRETS_KEY_PREVIOUS", "AUDIT_LOG_RETENTION",
];

export function childEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONFIG_VARIABLES) delete env[name];
  return { ...env, ...overrides };
}

/**
 * The environment of a child that owns a database: `overrides` (with its own DATA_DIR), plus a fresh PostgreSQL
 * database when the suite runs on PostgreSQL. `drop` removes that database (a no-op on PGlite).
 */
export async function childEnvWithDatabase(
  overrides: Record<string, string>,
): Promise<{ env: NodeJS.ProcessEnv; drop: () => Promise<void> }> {
  if (!usingPostgres) return { env: childEnv(overrides), drop: async () => undefined };
  const database = await createTestDatabase();
  return { env: childEnv({ ...overrides, DATABASE_URL: database.url! }), drop: database.drop };
}

/** A TCP port that was free a moment ago (the server must print its URL, so PORT=0 will not do). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const running = new Set<ChildProcess>();

/** Kills whatever a failed test left running (call from afterAll). */
export function killStrays(): void {
  for (const child of running) child.kill("SIGKILL");
  running.clear();
}

/**
 * Runs `args` with node (tsx loaded) in the repository root and collects its output. `input`, when given, is
 * piped to its stdin (then closed); otherwise stdin is /dev/null.
 */
export function runNode(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000, input?: string): Promise<Finished> {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
  if (input !== undefined) child.stdin!.end(input);
  running.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** `ocs <args>` through the real CLI entry point. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<Finished> {
  return runNode(["--import", "tsx", "src/cli/main.ts", ...args], env, 60_000, input);
}

export interface ServerProcess {
  readonly pid: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Resolves with the stdout text matched, once `pattern` appears; rejects if the process exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /**
   * The first start's credentials banner: with stdout not a terminal (as here) the server writes it to
   * DATA_DIR/first-start.txt and logs only the path (SPEC §14). Resolves with `pattern` matched in that file.
   */
  waitForFirstStart(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray & { text: string; file: string }>;
  /** Resolves once the process has exited. */
  readonly exited: Promise<Finished>;
  /** Sends `signal` and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<Finished>;
}

/** `npm start`, i.e. `node --import tsx src/main.ts`, so signals reach the real process. */
export function startServerProcess(env: NodeJS.ProcessEnv): ServerProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  let stdout = "";
  let stderr = "";
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((listener) => listener());
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => ((stdout += chunk), notify()));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => ((stderr += chunk), notify()));
  let done = false;
  const exited = new Promise<Finished>((resolve) => {
    child.once("close", (code, signal) => {
      done = true;
      running.delete(child);
      notify();
      resolve({ code, signal, stdout, stderr });
    });
  });
  return {
    pid: child.pid!,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    exited,
    waitFor(pattern, timeoutMs = 45_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stdout);
          if (match) return finish(() => resolve(match));
          if (done) return finish(() => reject(new Error(`server exited before printing ${pattern}:\n${stdout}\n${stderr}`)));
        };
        const timer = setTimeout(
          () => finish(() => reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${stdout}\n${stderr}`))),
          timeoutMs,
        );
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
    async waitForFirstStart(pattern, timeoutMs = 45_000) {
      const [, file] = await this.waitFor(/"firstStartFile":"([^"]+)"/, timeoutMs);
      const text = readFileSync(file, "utf8");
      const match = pattern.exec(text);
      if (!match) throw new Error(`${file} does not match ${pattern}:\n${text}`);
      return Object.assign(match, { text, file });
    },
    async stop(signal = "SIGTERM") {
      if (!done) child.kill(signal);
      return exited;
    },
  };
}
