import { loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { serve } from "./serve.ts";
import { describeError } from "./cli/errors.ts";

// `npm start`: the same start-up as `ocs serve`, with the same one-line messages for operator mistakes
// (invalid configuration, port in use, data directory held by another process).
try {
  const config = loadConfig();
  await serve(config, createLogger(config.logLevel));
} catch (error) {
  process.stderr.write(`error: ${describeError(error)}\n`);
  process.exit(1);
}
