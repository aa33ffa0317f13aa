/**
 * The zod → OpenAPI transform registers every named schema twice (request and response variants); the
 * published document keeps only the components that some path actually references.
 */
type WithSchemas = { components?: { schemas?: Record<string, unknown> } };

export function withoutUnusedSchemas<T extends object>(input: T): T {
  const document = input as T & WithSchemas;
  const schemas = document.components?.schemas;
  if (!schemas) return document;
  const used = new Set<string>();
  const pending = [JSON.stringify({ ...document, components: { ...document.components, schemas: {} } })];
  while (pending.length) {
    for (const match of pending.pop()!.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      const name = decodeURIComponent(match[1]);
      if (used.has(name) || !(name in schemas)) continue;
      used.add(name);
      pending.push(JSON.stringify(schemas[name]));
    }
  }
  const kept = Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
  return { ...document, components: { ...document.components, schemas: kept } } as T;
}
