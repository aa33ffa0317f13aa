import pg from "pg";
import { provision, startBenchService, runCleanups } from "./harness.ts";
import { seedMerchant } from "./stats-seed.ts";
import { OrderStatBucketsRepository } from "../src/domain/stats/order-stat-buckets.repository.ts";
const kind = (process.env.K ?? "pglite") as any;
const db = (await provision(kind))!;
const service = await startBenchService(db);
const admin = new pg.Pool({ connectionString: db.url, max: 2 });
const shop = await service.app.services.merchantService.createMerchant("S");
const big = await service.app.services.merchantService.createMerchant("B");
const now = new Date();
await seedMerchant(admin, big.merchant.id, Number(process.env.N ?? 20000), now, 365);
await seedMerchant(admin, shop.merchant.id, 1000, now, 30);
if (process.env.ANALYZE) await admin.query("ANALYZE");
const to = new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000);
const repo = new OrderStatBucketsRepository(admin);
const { readPlan, FIGURES_SQL } = await import("../src/domain/stats/order-stat-buckets.repository.ts");
for (const m of [big]) {
  const days = 365;
  const bounds = (await admin.query(`SELECT extract(epoch FROM key AT TIME ZONE 'Asia/Kolkata')::float8*1000 AS s, extract(epoch FROM (key + interval '1 day') AT TIME ZONE 'Asia/Kolkata')::float8*1000 AS e FROM generate_series(date_trunc('day', $1::timestamptz AT TIME ZONE 'Asia/Kolkata'), date_trunc('day', ($2::timestamptz - interval '1 microsecond') AT TIME ZONE 'Asia/Kolkata'), interval '1 day') key`, [new Date(to.getTime() - days*86400000), to])).rows;
  const { pieces, edges } = readPlan(bounds.map((b: any) => ({ from: Math.max(b.s, to.getTime() - days*86400000), to: Math.min(b.e, to.getTime()) })), "day");
  for (let i = 0; i < 3; i++) { const t0 = performance.now(); const r = await admin.query(FIGURES_SQL, [m.merchant.id, "test", pieces.term, pieces.sign, pieces.span, pieces.lo, pieces.hi, edges.term, edges.lo, edges.hi]); console.log("sql", (performance.now() - t0).toFixed(1), "ms", r.rows.length, "rows", JSON.stringify(r.rows).length, "bytes"); }
  const t1 = performance.now(); const repo2 = new OrderStatBucketsRepository(admin); await repo2.figures({ merchantId: m.merchant.id, mode: "test" }, { from: new Date(to.getTime() - days * 86400000), to, timeZone: "Asia/Kolkata", interval: "day" }); console.log("repo", (performance.now() - t1).toFixed(1));
  const plan = await admin.query(`EXPLAIN (ANALYZE) ${FIGURES_SQL}`, [m.merchant.id, "test", pieces.term, pieces.sign, pieces.span, pieces.lo, pieces.hi, edges.term, edges.lo, edges.hi]);
  console.log(plan.rows.map((r: any) => r["QUERY PLAN"]).join("\n"));
}
await admin.end(); await runCleanups(); await db.drop(); process.exit(0);
