import { describe, expect, it } from "vitest";
import { documentPolicy } from "../../src/graphql/trusted-documents.ts";
import { consoleContentSecurityPolicy } from "../../src/http/routes/console-page.routes.ts";

describe("documentPolicy: which documents a browser request may carry besides the console's own", () => {
  const all = (enforced: boolean, session: boolean, admin: boolean, explorer: boolean) =>
    documentPolicy({ enforced, session, admin, explorer });

  it("allows any document while trusted documents are off, and to requests without a session", () => {
    for (const session of [true, false]) {
      for (const admin of [true, false]) {
        for (const explorer of [true, false]) expect(all(false, session, admin, explorer)).toBe("any");
      }
    }
    expect(all(true, false, false, true)).toBe("any"); // no session: refused later as unauthenticated
  });

  it("when enforced: console documents only, except an admin's explorer", () => {
    expect(all(true, true, true, false)).toBe("trusted-only");
    expect(all(true, true, false, false)).toBe("trusted-only");
    expect(all(true, true, true, true)).toBe("any");
    expect(all(true, true, false, true)).toBe("explorer-admin-only");
  });
});

describe("consoleContentSecurityPolicy", () => {
  it("relaxes styles and allows same-origin workers for the explorer page only; scripts stay 'self' everywhere", () => {
    const app = consoleContentSecurityPolicy("localhost:3000");
    const explorer = consoleContentSecurityPolicy("localhost:3000", "explorer");
    expect(app).toContain("style-src 'self';");
    expect(app).not.toContain("worker-src");
    expect(explorer).toContain("style-src 'self' 'unsafe-inline';");
    expect(explorer).toContain("worker-src 'self';");
    for (const policy of [app, explorer]) {
      expect(policy).toContain("script-src 'self';");
      expect(policy).toContain("font-src 'self';");
      expect(policy).not.toMatch(/unsafe-eval|blob:/);
    }
  });
});
