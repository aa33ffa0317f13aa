import type { Config } from "../config.ts";

/** What the CLI receives from its entry point (bin/ocs.js): the configuration and the server, on demand. */
export interface CliContext {
  /** Reads and validates the configuration (src/config.ts); called only by verbs that need it. */
  loadConfig(): Config;
  /** `ocs serve`: runs the server (src/serve.ts) until a signal stops it. */
  serve(config: Config): Promise<void>;
}
