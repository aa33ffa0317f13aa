import { Prisma, type PrismaClient } from "../../generated/prisma/client.ts";
import { recordAudit, type AuditSource } from "../audit/audit-log.ts";

export type UserRole = "admin" | "viewer" | "agent";

export interface UserRecord {
  id: string;
  merchantId: string;
  email: string;
  role: UserRole;
  passwordHash: string;
  createdAt: Date;
}

export interface SessionRecord {
  idHash: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  user: { id: string; email: string; role: UserRole; merchant: { id: string; name: string } };
}

export class EmailTakenInStoreError extends Error {}

const userFields = { id: true, merchantId: true, email: true, role: true, passwordHash: true, createdAt: true } as const;

/** Console users and their sessions. Only this file touches those tables. */
export class UserRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /** Throws EmailTakenInStoreError when the (lower-cased) e-mail is already used by any merchant's user. */
  async insertUser(
    user: { id: string; merchantId: string; email: string; role: UserRole; passwordHash: string; now: Date },
    audit: AuditSource,
  ): Promise<UserRecord> {
    try {
      return await this.prisma.$transaction(async (tx) => {
        const record = await tx.user.create({
        data: {
          id: user.id,
          merchantId: user.merchantId,
          email: user.email,
          role: user.role,
          passwordHash: user.passwordHash,
          passwordChangedAt: user.now,
          createdAt: user.now,
          updatedAt: user.now,
        },
        select: userFields,
        });
        await recordAudit(tx, { ...audit, merchantId: user.merchantId, action: "user.created", target: user.id, at: user.now });
        return record;
      });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") throw new EmailTakenInStoreError();
      throw error;
    }
  }

  async countUsers(merchantId: string): Promise<number> {
    return this.prisma.user.count({ where: { merchantId } });
  }

  async listUsers(merchantId: string): Promise<UserRecord[]> {
    return this.prisma.user.findMany({ where: { merchantId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: userFields });
  }

  async findUser(id: string): Promise<UserRecord | null> {
    return this.prisma.user.findUnique({ where: { id }, select: userFields });
  }

  async findUserByEmail(email: string): Promise<UserRecord | null> {
    return this.prisma.user.findUnique({ where: { email }, select: userFields });
  }

  /**
   * Removes the user and writes `user.removed`, in one transaction; its sessions go with it (ON DELETE CASCADE),
   * which signs every browser out. Answers the ids of the sessions that ended (their sockets are closed).
   */
  async deleteUser(id: string, audit: AuditSource): Promise<{ sessionIds: string[] } | null> {
    return this.prisma.$transaction(async (tx) => {
      const sessions = await tx.session.findMany({ where: { userId: id }, select: { idHash: true } });
      const user = await tx.user.findUnique({ where: { id }, select: { merchantId: true } });
      if (!user || (await tx.user.deleteMany({ where: { id } })).count === 0) return null;
      await recordAudit(tx, { ...audit, merchantId: user.merchantId, action: "user.removed", target: id });
      return { sessionIds: sessions.map((session) => session.idHash) };
    });
  }

  /** The new hash, the end of every session of the user, and `user.password_reset`, in one transaction. */
  async replacePassword(
    id: string,
    passwordHash: string,
    now: Date,
    audit: AuditSource,
  ): Promise<{ record: UserRecord; sessionIds: string[] } | null> {
    return this.prisma.$transaction(async (tx) => {
      const updated = await tx.user.updateMany({ where: { id }, data: { passwordHash, passwordChangedAt: now, updatedAt: now } });
      if (updated.count === 0) return null;
      const sessions = await tx.session.findMany({ where: { userId: id }, select: { idHash: true } });
      await tx.session.deleteMany({ where: { userId: id } });
      const record = await tx.user.findUniqueOrThrow({ where: { id }, select: userFields });
      await recordAudit(tx, { ...audit, merchantId: record.merchantId, action: "user.password_reset", target: id, at: now });
      return { record, sessionIds: sessions.map((session) => session.idHash) };
    });
  }

  /** The new session and its `sign_in.succeeded` entry, in one transaction. */
  async insertSession(session: { idHash: string; userId: string; merchantId: string; now: Date; expiresAt: Date }, audit: AuditSource): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.session.create({
        data: { idHash: session.idHash, userId: session.userId, createdAt: session.now, lastSeenAt: session.now, expiresAt: session.expiresAt },
      });
      await recordAudit(tx, { ...audit, merchantId: session.merchantId, action: "sign_in.succeeded", target: session.userId, at: session.now });
    });
  }

  /** A failed sign-in of a known user (an unknown e-mail belongs to no merchant: it is only logged). */
  async recordFailedSignIn(user: UserRecord, audit: AuditSource): Promise<void> {
    await recordAudit(this.prisma, { ...audit, merchantId: user.merchantId, action: "sign_in.failed", target: user.id });
  }

  async findSession(idHash: string): Promise<SessionRecord | null> {
    return this.prisma.session.findUnique({
      where: { idHash },
      select: {
        idHash: true,
        createdAt: true,
        lastSeenAt: true,
        expiresAt: true,
        user: { select: { id: true, email: true, role: true, merchant: { select: { id: true, name: true } } } },
      },
    });
  }

  async touchSession(idHash: string, now: Date): Promise<void> {
    await this.prisma.session.updateMany({ where: { idHash }, data: { lastSeenAt: now } });
  }

  async deleteSession(idHash: string): Promise<boolean> {
    return (await this.prisma.session.deleteMany({ where: { idHash } })).count > 0;
  }

  async countSessions(userId: string): Promise<number> {
    return this.prisma.session.count({ where: { userId } });
  }

  /**
   * Housekeeping at sign-in: drops the user's sessions past their absolute or idle expiry, and the oldest beyond
   * `keep`, so one account never accumulates unbounded rows.
   */
  async pruneSessions(userId: string, now: Date, idleSince: Date, keep: number): Promise<void> {
    await this.prisma.session.deleteMany({
      where: { userId, OR: [{ expiresAt: { lte: now } }, { lastSeenAt: { lte: idleSince } }] },
    });
    const beyond = await this.prisma.session.findMany({
      where: { userId },
      orderBy: [{ createdAt: "desc" }, { idHash: "asc" }],
      skip: keep,
      select: { idHash: true },
    });
    if (beyond.length) await this.prisma.session.deleteMany({ where: { idHash: { in: beyond.map((row) => row.idHash) } } });
  }

  /** Sessions past their absolute or idle expiry, everywhere (the maintenance sweep). */
  async deleteExpiredSessions(now: Date, idleSince: Date): Promise<number> {
    const { count } = await this.prisma.session.deleteMany({
      where: { OR: [{ expiresAt: { lte: now } }, { lastSeenAt: { lte: idleSince } }] },
    });
    return count;
  }
}
