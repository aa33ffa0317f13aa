import { z } from "zod";
import { EmailTakenError, NotFoundError, UserLimitError, ValidationError } from "../errors.ts";
import { isUuid, newId } from "../ids.ts";
import { generatePassword, hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "./password.ts";
import { EmailTakenInStoreError, type UserRecord, type UserRepository, type UserRole } from "./user.repository.ts";
import { cliSource, type AuditSource } from "../audit/audit-log.ts";

/** Console users per merchant: plenty for a team, bounded so a script cannot grow the table without end. */
export const MAX_USERS_PER_MERCHANT = 100;
export const USER_ROLES = ["admin", "viewer", "agent"] as const satisfies readonly UserRole[];

/** What may be shown of a user: never the password hash. */
export interface UserView {
  id: string;
  email: string;
  role: UserRole;
  merchantId: string;
  createdAt: string;
}

export interface UserWithPassword {
  user: UserView;
  /** Only when the service generated it (shown once). */
  generatedPassword: string | null;
}

/** Told the ids of sessions that just ended (removal, new password), so their open sockets close at once. */
export type SessionsEnded = (sessionIds: string[]) => void;

const email = z.string().trim().toLowerCase().max(254).pipe(z.email());

/** E-mails compare lower-cased (and trimmed), both when stored and at sign-in. */
export function normaliseEmail(text: string): string {
  return text.trim().toLowerCase();
}

/** Console accounts: created, listed, removed and given new passwords by the operator CLI. */
export class UserService {
  constructor(
    private readonly users: UserRepository,
    private readonly merchantExists: (merchantId: string) => Promise<boolean>,
    private readonly clock: () => Date = () => new Date(),
    private readonly sessionsEnded: SessionsEnded = () => undefined,
  ) {}

  /** A new user; without `password` one is generated and returned once. */
  async create(
    merchantId: string,
    emailText: string,
    role: UserRole,
    password?: string,
    audit: AuditSource = cliSource("users create"),
  ): Promise<UserWithPassword> {
    const address = email.safeParse(emailText);
    if (!address.success) throw new ValidationError([{ field: "email", key: "field.format.email" }]);
    checkPassword(password);
    if (!isUuid(merchantId) || !(await this.merchantExists(merchantId))) throw new NotFoundError("merchant");
    if ((await this.users.countUsers(merchantId)) >= MAX_USERS_PER_MERCHANT) throw new UserLimitError(MAX_USERS_PER_MERCHANT);
    const chosen = password ?? generatePassword();
    try {
      const record = await this.users.insertUser({
        id: newId(),
        merchantId,
        email: address.data,
        role,
        passwordHash: await hashPassword(chosen),
        now: this.clock(),
      }, audit);
      return { user: toUserView(record), generatedPassword: password === undefined ? chosen : null };
    } catch (error) {
      if (error instanceof EmailTakenInStoreError) throw new EmailTakenError(address.data);
      throw error;
    }
  }

  async list(merchantId: string): Promise<UserView[]> {
    if (!isUuid(merchantId) || !(await this.merchantExists(merchantId))) throw new NotFoundError("merchant");
    return (await this.users.listUsers(merchantId)).map(toUserView);
  }

  /** Removes the user and, with it, every session it has (signed out at once). */
  async remove(userId: string, audit: AuditSource = cliSource("users remove")): Promise<UserView> {
    const record = isUuid(userId) ? await this.users.findUser(userId) : null;
    const removed = record ? await this.users.deleteUser(record.id, audit) : null;
    if (!record || !removed) throw new NotFoundError("user");
    this.sessionsEnded(removed.sessionIds);
    return toUserView(record);
  }

  /** A new password (generated and returned once when none is given); every session of the user ends. */
  async resetPassword(userId: string, password?: string, audit: AuditSource = cliSource("users reset-password")): Promise<UserWithPassword> {
    checkPassword(password);
    if (!isUuid(userId)) throw new NotFoundError("user");
    const chosen = password ?? generatePassword();
    const replaced = await this.users.replacePassword(userId, await hashPassword(chosen), this.clock(), audit);
    if (!replaced) throw new NotFoundError("user");
    this.sessionsEnded(replaced.sessionIds);
    return { user: toUserView(replaced.record), generatedPassword: password === undefined ? chosen : null };
  }
}

function checkPassword(password: string | undefined): void {
  if (password === undefined) return;
  if (password.length < PASSWORD_MIN_LENGTH) {
    throw new ValidationError([{ field: "password", key: "field.string.min", params: { min: PASSWORD_MIN_LENGTH } }]);
  }
  if (password.length > PASSWORD_MAX_LENGTH) {
    throw new ValidationError([{ field: "password", key: "field.string.max", params: { max: PASSWORD_MAX_LENGTH } }]);
  }
}

export function toUserView(record: UserRecord): UserView {
  return { id: record.id, email: record.email, role: record.role, merchantId: record.merchantId, createdAt: record.createdAt.toISOString() };
}
