import { describe, expect, it } from "vitest";
import { findChromium, installPlan } from "../support/chromium.ts";

/** Issue 13, class 7: how `npm test` finds or installs the browser the /simulator page tests need. */
describe("findChromium", () => {
  const files = new Set(["/usr/bin/chromium", "/opt/chrome"]);
  const exists = (path: string) => files.has(path);

  it("prefers CHROMIUM_PATH, and a CHROMIUM_PATH naming no file finds nothing (no silent fallback)", () => {
    expect(findChromium({ CHROMIUM_PATH: "/opt/chrome" }, ["/usr/bin/chromium"], exists)).toBe("/opt/chrome");
    expect(findChromium({ CHROMIUM_PATH: "/missing" }, ["/usr/bin/chromium"], exists)).toBeNull();
  });

  it("takes the first system or Playwright binary that exists", () => {
    expect(findChromium({}, ["/usr/bin/chromium-browser", "/usr/bin/chromium"], exists)).toBe("/usr/bin/chromium");
    expect(findChromium({}, ["/nothing", ""], exists)).toBeNull();
  });
});

describe("installPlan", () => {
  it("Debian's package first where apt-get may be used, then Playwright's download", () => {
    expect(installPlan({ chromiumPathSet: false, aptGet: true, privileged: true })).toEqual({ methods: ["apt", "playwright"], skipped: [] });
  });

  it("says why apt-get is left out", () => {
    expect(installPlan({ chromiumPathSet: false, aptGet: true, privileged: false })).toEqual({
      methods: ["playwright"],
      skipped: ["apt-get needs root or passwordless sudo"],
    });
    expect(installPlan({ chromiumPathSet: false, aptGet: false, privileged: true }).skipped).toEqual(["no apt-get"]);
  });

  it("installs nothing for a CHROMIUM_PATH that names no file", () => {
    expect(installPlan({ chromiumPathSet: true, aptGet: true, privileged: true })).toEqual({
      methods: [],
      skipped: ["CHROMIUM_PATH is set but names no file"],
    });
  });
});
