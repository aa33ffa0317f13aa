import { chromium, type Browser } from "playwright-core";
import { CHROMIUM_ARGS, findChromium } from "./chromium.ts";

/**
 * The Chromium every browser test drives through playwright-core (which never downloads a browser itself):
 * found as test/support/chromium.ts says (CHROMIUM_PATH, the system's, Playwright's cache); `npm test` installs
 * one first when there is none, so the browser tests are never skipped.
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) {
    throw new Error("No Chromium for the browser tests: run them with npm test (which installs one) or set CHROMIUM_PATH.");
  }
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}
