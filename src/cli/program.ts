import { Command, InvalidArgumentError, Option } from "commander";
import type { Config } from "../config.ts";
import { EmailTakenError, NotFoundError, UserLimitError, ValidationError } from "../domain/errors.ts";
import type { KeyMode } from "../domain/merchants/api-key.ts";
import { MerchantRepository } from "../domain/merchants/merchant.repository.ts";
import { MerchantService } from "../domain/merchants/merchant.service.ts";
import { UserRepository, type UserRole } from "../domain/users/user.repository.ts";
import { OrderStatsVerifier, type StatsVerification } from "../domain/stats/order-stats-verifier.ts";
import { UserService, USER_ROLES, type UserView } from "../domain/users/user.service.ts";
import { translate } from "../i18n/messages.ts";
import { migrateDatabase, withDatabase, type CliDatabase } from "./connection.ts";
import { CliError } from "./errors.ts";
import { createOutput, describeRoute, keyTable, keyView, userTable, type Output } from "./output.ts";
import { passwordFromStdin } from "./stdin-password.ts";
import { packageVersion } from "../version.ts";
import { announceEndedSessions, registerSecurityCommands } from "./security-commands.ts";
import type { CliContext } from "./cli-context.ts";

export type { CliContext } from "./cli-context.ts";


/** The operator CLI of SPEC §8. Verbs only parse arguments and print; the work is the domain services'. */
export function buildProgram(context: CliContext): Command {
  const program = new Command("ocs")
    .description("Operator CLI of the Order Confirmation Service (uses the same DATABASE_URL / DATA_DIR as the server)")
    .version(packageVersion(), "-V, --version")
    .showSuggestionAfterError(true)
    // Usage errors stay one line on stderr, suggestions included ("unknown command 'x' (Did you mean users?)").
    .configureOutput({ outputError: (text, write) => write(`${text.trimEnd().replace(/\s*\n\s*/g, " ")}\n`) });

  program
    .command("migrate")
    .description("apply pending database migrations")
    .option("--json", "print the result as one JSON object")
    .action(async (options: { json?: boolean }) => {
      const out = createOutput(Boolean(options.json));
      const result = await migrateDatabase(context.loadConfig());
      out.note(describeRoute(result.route));
      const human = result.applied.length
        ? `Applied ${result.applied.length} migration(s):\n${result.applied.map((name) => `  ${name}`).join("\n")}`
        : `The database is up to date (${result.alreadyApplied} migration(s) already applied).`;
      out.result(human, { applied: result.applied, alreadyApplied: result.alreadyApplied });
    });

  program
    .command("serve")
    .description("migrate, then serve the API (same as npm start)")
    .action(async () => {
      await context.serve(context.loadConfig());
    });

  const merchants = program.command("merchants").description("manage merchants");
  merchants
    .command("create")
    .description("create a merchant with one live and one test API key (shown once)")
    .requiredOption("--name <name>", "the merchant's display name (1–200 characters)", merchantName)
    .option("--json", "print the result as one JSON object")
    .action(async (options: { name: string; json?: boolean }) => {
      const out = createOutput(Boolean(options.json));
      await withMerchants(context, out, async (service) => {
        const created = await service.createMerchant(options.name);
        out.result(
          [
            `Created merchant "${created.merchant.name}" (${created.merchant.id})`,
            "",
            `  Live API key:  ${created.keys.live}`,
            `  Test API key:  ${created.keys.test}`,
            "",
            "Store these keys now: they are not shown again (only their prefixes are).",
          ].join("\n"),
          { merchant: created.merchant, keys: { live: created.keys.live, test: created.keys.test } },
        );
      });
    });

  const keys = program.command("keys").description("manage API keys");
  keys
    .command("create")
    .description("create an API key for a merchant (the key is shown once)")
    .requiredOption("--merchant <id>", "the merchant's id")
    .addOption(new Option("--mode <mode>", "live keys send real WhatsApp messages; test keys use the simulator").choices(["live", "test"]).default("test"))
    .option("--name <name>", "a label for the key, shown when listing (1–200 characters)", keyName)
    .option("--json", "print the result as one JSON object")
    .action(async (options: { merchant: string; mode: KeyMode; name?: string; json?: boolean }) => {
      const out = createOutput(Boolean(options.json));
      await withMerchants(context, out, async (service) => {
        const created = await merchantNamed(options.merchant, () => service.createKey(options.merchant, options.mode, options.name ?? null));
        const view = keyView(created.record);
        out.result(
          [
            `Created ${view.mode} API key ${view.id} for merchant ${view.merchantId}`,
            "",
            `  API key:  ${created.key}`,
            "",
            "Store it now: it is not shown again (only its prefix is).",
          ].join("\n"),
          { key: view, apiKey: created.key },
        );
      });
    });

  keys
    .command("list")
    .description("list a merchant's API keys (prefixes only, never the keys)")
    .requiredOption("--merchant <id>", "the merchant's id")
    .option("--json", "print the result as one JSON object")
    .action(async (options: { merchant: string; json?: boolean }) => {
      const out = createOutput(Boolean(options.json));
      await withMerchants(context, out, async (service) => {
        const views = (await merchantNamed(options.merchant, () => service.listKeys(options.merchant))).map(keyView);
        const human = views.length
          ? `API keys of merchant ${options.merchant}:\n${keyTable(views)}`
          : `Merchant ${options.merchant} has no API keys.`;
        out.result(human, { merchantId: options.merchant, keys: views });
      });
    });

  keys
    .command("revoke")
    .description("revoke an API key (servers stop accepting it within 5 seconds)")
    .argument("<keyId>", "the key's id (see `ocs keys list`)")
    .option("--json", "print the result as one JSON object")
    .action(async (keyId: string, options: { json?: boolean }) => {
      const out = createOutput(Boolean(options.json));
      await withMerchants(context, out, async (service) => {
        let record;
        try {
          record = await service.revokeKey(keyId);
        } catch (error) {
          if (error instanceof NotFoundError) throw new CliError(`API key ${keyId} not found.`);
          throw error;
        }
        const view = keyView(record);
        out.result(
          `Revoked ${view.mode} API key ${view.id} (${view.prefix}…) of merchant ${view.merchantId} at ${view.revokedAt}.\n` +
            "Running servers reject it within 5 seconds.",
          { key: view },
        );
      });
    });

  const stats = program.command("stats").description("order statistics (docs/statistics.md)");
  stats
    .command("verify")
    .description("compare a merchant's pre-aggregated statistics with its orders (exit code 1 when they differ)")
    .requiredOption("--merchant <id>", "the merchant's id")
    .option("--repair", "add the differences found to the stored statistics (safe while the service runs)")
    .option("--json", "print the result as one JSON object")
    .action(async (options: { merchant: string; repair?: boolean; json?: boolean }) => {
      const out = createOutput(Boolean(options.json));
      await withDatabase(context.loadConfig(), async ({ route, database, applied }: CliDatabase) => {
        const merchant = await database.prisma.merchant.findUnique({ where: { id: options.merchant }, select: { id: true } }).catch(() => null);
        if (!merchant) throw new CliError(`Merchant ${options.merchant} not found.`);
        const result = await new OrderStatsVerifier(database.pool).verify(options.merchant, { repair: Boolean(options.repair) });
        out.result(describeVerification(result), result);
        out.note(describeRoute(route));
        if (applied.length) out.note(`Applied ${applied.length} migration(s): ${applied.join(", ")}`);
        if (result.mismatches.length > 0 && !result.repaired) process.exitCode = 1;
      });
    });

  const users = program.command("users").description("manage console users (browser sign-in to GraphQL and the console)");
  users
    .command("create")
    .description("create a console user; the password is read from stdin (one line) unless stdin is a terminal or empty, then generated and shown once")
    .requiredOption("--merchant <id>", "the merchant's id")
    .requiredOption("--email <email>", "the e-mail the user signs in with (unique, any case)")
    .addOption(new Option("--role <role>", "admin may do everything; viewer may only read; agent works the follow-up desk (orders, answers, replies, export)").choices([...USER_ROLES]).default("admin"))
    .option("--json", "print the result as one JSON object")
    .action(async (options: { merchant: string; email: string; role: UserRole; json?: boolean }) => {
      const out = createOutput(Boolean(options.json));
      const password = await passwordFromStdin();
      await withUsers(context, out, async (service) => {
        const created = await userProblems(() => merchantNamed(options.merchant, () => service.create(options.merchant, options.email, options.role, password)));
        out.result(
          [
            `Created ${created.user.role} ${created.user.email} (${created.user.id}) for merchant ${created.user.merchantId}`,
            ...(created.generatedPassword
              ? ["", `  Password:  ${created.generatedPassword}`, "", "Store it now: it is not shown again (only its hash is kept)."]
              : []),
          ].join("\n"),
          { user: userJson(created.user), ...(created.generatedPassword ? { password: created.generatedPassword } : {}) },
        );
      });
    });

  users
    .command("list")
    .description("list a merchant's console users")
    .requiredOption("--merchant <id>", "the merchant's id")
    .option("--json", "print the result as one JSON object")
    .action(async (options: { merchant: string; json?: boolean }) => {
      const out = createOutput(Boolean(options.json));
      await withUsers(context, out, async (service) => {
        const list = await merchantNamed(options.merchant, () => service.list(options.merchant));
        const human = list.length ? `Console users of merchant ${options.merchant}:\n${userTable(list)}` : `Merchant ${options.merchant} has no console users.`;
        out.result(human, { merchantId: options.merchant, users: list.map((user) => ({ ...userJson(user), createdAt: user.createdAt })) });
      });
    });

  users
    .command("remove")
    .description("remove a console user; every session of it ends at once")
    .argument("<userId>", "the user's id (see `ocs users list`)")
    .option("--json", "print the result as one JSON object")
    .action(async (userId: string, options: { json?: boolean }) => {
      const out = createOutput(Boolean(options.json));
      await withUsers(context, out, async (service) => {
        const removed = await userNamed(userId, () => service.remove(userId));
        out.result(`Removed ${removed.role} ${removed.email} (${removed.id}); its sessions have ended.`, { user: userJson(removed) });
      });
    });

  users
    .command("reset-password")
    .description("give a console user a new password (stdin, one line, or generated and shown once); every session of it ends")
    .argument("<userId>", "the user's id (see `ocs users list`)")
    .option("--json", "print the result as one JSON object")
    .action(async (userId: string, options: { json?: boolean }) => {
      const out = createOutput(Boolean(options.json));
      const password = await passwordFromStdin();
      await withUsers(context, out, async (service) => {
        const reset = await userProblems(() => userNamed(userId, () => service.resetPassword(userId, password)));
        out.result(
          [
            `New password set for ${reset.user.email} (${reset.user.id}); its sessions have ended.`,
            ...(reset.generatedPassword ? ["", `  Password:  ${reset.generatedPassword}`, "", "Store it now: it is not shown again."] : []),
          ].join("\n"),
          { user: userJson(reset.user), ...(reset.generatedPassword ? { password: reset.generatedPassword } : {}) },
        );
      });
    });

  registerSecurityCommands(program, context);
  return program;
}

/** `{ id, email, role, merchantId }`: what SPEC §10 prints of a user. */
function userJson(user: UserView) {
  return { id: user.id, email: user.email, role: user.role, merchantId: user.merchantId };
}

async function withUsers(context: CliContext, out: Output, work: (service: UserService) => Promise<void>): Promise<void> {
  const config = context.loadConfig();
  await withDatabase(config, async ({ route, database, applied }: CliDatabase) => {
    const merchants = new MerchantRepository(database.prisma);
    const ended: string[] = [];
    await work(new UserService(new UserRepository(database.prisma), (merchantId) => merchants.exists(merchantId), undefined, (ids) => ended.push(...ids)));
    // The servers close the ended sessions' websockets at once when they share Redis; otherwise at their re-check.
    await announceEndedSessions(config.redisUrl, ended);
    out.note(describeRoute(route));
    if (applied.length) out.note(`Applied ${applied.length} migration(s): ${applied.join(", ")}`);
  });
}

function describeVerification(result: StatsVerification): string {
  const head = `Order statistics of merchant ${result.merchantId}: ${result.checkedBuckets} bucket(s) compared with the orders`;
  if (result.mismatches.length === 0) return `${head}; all exact.`;
  const shown = result.mismatches.slice(0, 20).map((mismatch) => {
    const figures = Object.entries(mismatch.difference)
      .filter(([, value]) => value !== 0 && value !== false)
      .map(([name, value]) => `${name} ${typeof value === "number" && value > 0 ? "+" : ""}${value}`)
      .join(", ");
    return `  ${mismatch.mode} ${mismatch.span} min ${mismatch.start} ${mismatch.kind}: ${figures}`;
  });
  const more = result.mismatches.length > 20 ? [`  … and ${result.mismatches.length - 20} more`] : [];
  const tail = result.repaired
    ? "Repaired: the differences (orders minus stored) were added to the stored statistics."
    : "Run again with --repair to correct them.";
  return [`${head}; ${result.mismatches.length} differ (orders minus stored):`, ...shown, ...more, tail].join("\n");
}

async function userNamed<T>(userId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof NotFoundError && error.resource === "user") throw new CliError(`User ${userId} not found.`);
    throw error;
  }
}

/** The user service's refusals as one line for the operator. */
async function userProblems<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ValidationError) {
      const problems = error.problems.map((problem) => `${problem.field === "email" ? "--email" : problem.field} ${translate(problem.key, "en", problem.params)}`);
      throw new CliError(`${problems.join("; ")}.`);
    }
    if (error instanceof EmailTakenError) throw new CliError(`A console user with the e-mail ${error.email} already exists.`);
    if (error instanceof UserLimitError) throw new CliError(`This merchant already has ${error.limit} console users, the most allowed; remove one first.`);
    throw error;
  }
}

/** Opens the database the way SPEC §8 asks, hands the merchant service to `work`, and closes it again. */
async function withMerchants(context: CliContext, out: Output, work: (service: MerchantService) => Promise<void>): Promise<void> {
  await withDatabase(context.loadConfig(), async ({ route, database, applied }: CliDatabase) => {
    await work(new MerchantService(new MerchantRepository(database.prisma)));
    // Said after the result, so that a failure is exactly one line on stderr.
    out.note(describeRoute(route));
    if (applied.length) out.note(`Applied ${applied.length} migration(s): ${applied.join(", ")}`);
  });
}

async function merchantNamed<T>(merchantId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof NotFoundError && error.resource === "merchant") throw new CliError(`Merchant ${merchantId} not found.`);
    throw error;
  }
}

function merchantName(value: string): string {
  const name = value.trim();
  if (name.length < 1 || name.length > 200) throw new InvalidArgumentError("It must have 1 to 200 characters.");
  return name;
}

function keyName(value: string): string {
  const name = value.trim();
  if (name.length < 1 || name.length > 200) throw new InvalidArgumentError("It must have 1 to 200 characters.");
  return name;
}
