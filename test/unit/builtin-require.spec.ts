import { createRequire } from "node:module";
import Module from "node:module";
import { describe, expect, it } from "vitest";
import "../../src/runtime/builtin-require.ts";

const resolveFilename = (Module as unknown as { _resolveFilename: (request: string, parent: unknown) => string })._resolveFilename;

describe("built-ins resolved before tsx's resolver", () => {
  it("answers a built-in with its own name, as Node's resolver does", () => {
    expect(resolveFilename("crypto", null)).toBe("crypto");
    expect(resolveFilename("node:crypto", null)).toBe("node:crypto");
    const require = createRequire(import.meta.url);
    expect(require("crypto").createHash("sha256").update("x").digest("hex")).toHaveLength(64);
  });

  it("leaves every other request to the resolver it replaced (packages and relative files)", () => {
    const require = createRequire(import.meta.url);
    expect(require.resolve("graphql")).toMatch(/node_modules\/graphql\//);
    expect(() => require.resolve("./no-such-file-here")).toThrow(/Cannot find module/);
  });

  it("is installed once, however often the module is loaded", async () => {
    const before = (Module as unknown as { _resolveFilename: unknown })._resolveFilename;
    const again = "../../src/runtime/builtin-require.ts?again";
    await import(/* @vite-ignore */ again);
    expect((Module as unknown as { _resolveFilename: unknown })._resolveFilename).toBe(before);
  });
});
