import { loadConfig, ConfigError } from "./config.ts";
import { createLogger } from "./logger.ts";
import { serve } from "./serve.ts";

try {
  const config = loadConfig();
  await serve(config, createLogger(config.logLevel));
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
