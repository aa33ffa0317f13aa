import { loadConfig } from "../config.ts";
import { describeError } from "./errors.ts";
import { buildProgram } from "./program.ts";

/**
 * `npx ocs <verb>` (bin/ocs.js) or `node --import tsx src/cli/main.ts <verb>`. Errors end as one line on stderr
 * and a non-zero exit code, never a stack trace.
 */
let serving = false;
const program = buildProgram({
  loadConfig: () => loadConfig(),
  async serve(config) {
    serving = true;
    const [{ serve }, { createLogger }] = await Promise.all([import("../serve.ts"), import("../logger.ts")]);
    await serve(config, createLogger(config.logLevel));
  },
});

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`error: ${describeError(error)}\n`);
  process.exitCode = 1;
  // A server that failed half-way may still hold its database and timers open.
  if (serving) process.exit();
}

if (!serving) {
  // Everything was closed; should a library still hold the event loop, do not hang the operator's shell.
  setTimeout(() => process.exit(), 3_000).unref();
}
