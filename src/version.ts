import { readFileSync } from "node:fs";
import path from "node:path";

/** The service's version (package.json), for the CLI's --version and the webhook User-Agent. */
export function packageVersion(): string {
  try {
    const file = path.resolve(import.meta.dirname, "../package.json");
    return (JSON.parse(readFileSync(file, "utf8")) as { version?: string }).version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}
