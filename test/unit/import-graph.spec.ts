import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Issue 19 (house): the import graph of src/ has no circles outside generated code, and the layers point one way
 * (i18n is below the domain). Imports are read from the source text, type-only ones included: a circle through a
 * type still ties the modules' edits and tests together. Generated code (Prisma's client, and codegen's resolver
 * types, which name our mapper types by design) is left out. `npx madge --circular --extensions ts src` shows
 * the same circles, generated ones included.
 */
const SRC = path.resolve(import.meta.dirname, "../../src");
const GENERATED = path.join(SRC, "generated");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return full === GENERATED ? [] : sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

/** Relative imports and re-exports of a file (static `import … from`, `export … from`, and `import("…")`). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)].map(
    (match) => match[1] ?? match[2],
  );
  return specifiers.filter((specifier) => specifier.startsWith(".")).map((specifier) => path.resolve(path.dirname(file), specifier));
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((file) => [file, importsOf(file).filter((target) => !target.startsWith(GENERATED + path.sep))]));
const relative = (file: string) => path.relative(SRC, file);

/** Strongly connected components with more than one module (or a module importing itself): Tarjan's algorithm. */
function circles(): string[][] {
  let index = 0;
  const indexes = new Map<string, number>();
  const lowLinks = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    indexes.set(node, index);
    lowLinks.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indexes.has(next)) {
        visit(next);
        lowLinks.set(node, Math.min(lowLinks.get(node)!, lowLinks.get(next)!));
      } else if (onStack.has(next)) {
        lowLinks.set(node, Math.min(lowLinks.get(node)!, indexes.get(next)!));
      }
    }
    if (lowLinks.get(node) === indexes.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(relative(member));
      } while (member !== node);
      if (component.length > 1 || graph.get(node)!.includes(node)) found.push(component.sort());
    }
  };
  for (const file of files) if (!indexes.has(file)) visit(file);
  return found;
}

describe("the import graph of src/", () => {
  it("reads the imports it checks (a module known to import others)", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(graph.get(path.join(SRC, "app.ts"))!.map(relative)).toContain("config.ts");
  });

  it("has no import circles outside generated code", () => {
    expect(circles()).toEqual([]);
  });

  it("keeps i18n below the domain and the transports: it imports neither", () => {
    const upward = files
      .filter((file) => relative(file).startsWith(`i18n${path.sep}`))
      .flatMap((file) => graph.get(file)!.map((target) => `${relative(file)} → ${relative(target)}`))
      .filter((edge) => !/→ i18n\//.test(edge));
    expect(upward).toEqual([]);
  });
});
