// Prisma CLI configuration (generate, migrate diff). The CLI's JS schema engine talks to the database
// through a driver adapter, so no engine binary is ever downloaded. Without a postgres DATABASE_URL the
// adapter points at a throwaway in-memory PGlite, which is all `migrate diff` needs.
import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg-cli";
import { startEmbeddedPostgres } from "./src/db/embedded-postgres.ts";

let adapter: Promise<PrismaPg> | undefined;

async function createAdapter(): Promise<PrismaPg> {
  const configured = process.env.DATABASE_URL ?? "";
  if (/^postgres(ql)?:\/\//.test(configured) && !configured.includes("@localhost/generate")) {
    return new PrismaPg({ connectionString: configured });
  }
  const embedded = await startEmbeddedPostgres({ dataDir: null, unref: true });
  return new PrismaPg({ connectionString: embedded.url });
}

export default defineConfig({
  schema: "prisma/schema.prisma",
  experimental: { adapter: true },
  engine: "js",
  // The CLI calls the factory more than once per command: one database per command is enough.
  adapter: () => (adapter ??= createAdapter()),
});
