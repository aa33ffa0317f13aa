import { createHash } from "node:crypto";
import type { Logger } from "pino";
import { SignInThrottledError, UnauthorizedError } from "../errors.ts";
import type { AttemptCounter } from "./attempt-counter.ts";
import { dummyPasswordHash, PASSWORD_MAX_LENGTH, verifyPassword } from "./password.ts";
import { generateSessionToken, hashSessionToken, isSessionTokenFormat } from "./session-token.ts";
import type { UserRepository, UserRole } from "./user.repository.ts";
import { normaliseEmail } from "./user.service.ts";

/** Who a session cookie speaks for. */
export interface SessionPrincipal {
  /** SHA-256 of the cookie's id: identifies the session without being usable as a cookie. */
  sessionId: string;
  user: { id: string; email: string; role: UserRole };
  merchant: { id: string; name: string };
}

export interface SignedIn {
  /** The cookie's value; shown to the browser once, only its hash is stored. */
  token: string;
  principal: SessionPrincipal;
  expiresAt: Date;
}

export interface SessionPolicy {
  idleTimeoutMs: number;
  maxAgeMs: number;
  signInRateLimit: { maxPerEmail: number; maxPerAddress: number; windowMs: number };
}

/** Sessions one user may hold (browsers, devices); the oldest beyond are signed out at the next sign-in. */
export const MAX_SESSIONS_PER_USER = 20;
/** `lastSeenAt` is written at most this often per session (idle expiry is that much less precise). */
const MAX_TOUCH_INTERVAL_MS = 60_000;

/**
 * Console sign-in and sessions (SPEC §10). Every outcome of a sign-in is an audit log line (`audit: true`,
 * never the password). A wrong e-mail and a wrong password are one answer in the same time: unknown e-mails are
 * verified against a dummy hash. Attempts are throttled per e-mail (failures) and per address (all).
 */
export class SessionService {
  private readonly audit: Logger;

  constructor(
    private readonly users: UserRepository,
    private readonly attempts: AttemptCounter,
    private readonly policy: SessionPolicy,
    logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.audit = logger.child({ component: "console-auth", audit: true });
    // Computed now, so the first unknown e-mail does not take twice as long as a wrong password.
    void dummyPasswordHash();
  }

  async signIn(emailText: string, password: string, address: string): Promise<SignedIn> {
    const email = normaliseEmail(emailText);
    const { maxPerEmail, maxPerAddress, windowMs } = this.policy.signInRateLimit;
    const emailKey = `email:${createHash("sha256").update(email).digest("hex")}`;
    const fromAddress = await this.attempts.hit(`address:${address}`, windowMs);
    const forEmail = await this.attempts.peek(emailKey);
    const throttledFor =
      fromAddress.count > maxPerAddress ? fromAddress.resetInMs : forEmail.count >= maxPerEmail ? forEmail.resetInMs : null;
    if (throttledFor !== null) {
      this.audit.warn({ event: "sign_in.throttled", email, address }, "console sign-in throttled");
      throw new SignInThrottledError(Math.max(1, Math.ceil(throttledFor / 1000)));
    }

    const user = await this.users.findUserByEmail(email);
    // Over-long passwords are refused after the same work, so length does not tell anything either.
    const matches =
      (await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()))) &&
      password.length <= PASSWORD_MAX_LENGTH &&
      user !== null;
    if (!user || !matches) {
      await this.attempts.hit(emailKey, windowMs);
      this.audit.warn(
        { event: "sign_in.failed", email, address, reason: user ? "wrong_password" : "unknown_email" },
        "console sign-in failed",
      );
      throw new UnauthorizedError("credentials");
    }
    await this.attempts.reset(emailKey);

    const now = this.clock();
    const token = generateSessionToken();
    const sessionId = hashSessionToken(token);
    const expiresAt = new Date(now.getTime() + this.policy.maxAgeMs);
    await this.users.pruneSessions(user.id, now, new Date(now.getTime() - this.policy.idleTimeoutMs), MAX_SESSIONS_PER_USER - 1);
    await this.users.insertSession({ idHash: sessionId, userId: user.id, now, expiresAt });
    const merchant = await this.principalOf(sessionId);
    if (!merchant) throw new UnauthorizedError("session"); // removed in the meantime
    this.audit.info(
      { event: "sign_in.succeeded", email, address, userId: user.id, merchantId: user.merchantId },
      "console sign-in",
    );
    return { token, principal: merchant, expiresAt };
  }

  /** Ends the session of this cookie (if it is one); true when there was one. */
  async signOut(token: string | undefined): Promise<boolean> {
    if (!token || !isSessionTokenFormat(token)) return false;
    const principal = await this.principalOf(hashSessionToken(token));
    const ended = await this.users.deleteSession(hashSessionToken(token));
    if (ended && principal) {
      this.audit.info({ event: "sign_out", userId: principal.user.id, merchantId: principal.merchant.id }, "console sign-out");
    }
    return ended;
  }

  /**
   * The principal of a session cookie, or null when it is malformed, unknown, signed out, revoked (password
   * change, user removed) or expired (idle or absolute; an expired session is deleted on sight). Read from the
   * database on every call, so a revocation is effective at once on every instance.
   */
  async authenticate(token: string | undefined): Promise<SessionPrincipal | null> {
    if (!token || !isSessionTokenFormat(token)) return null;
    const idHash = hashSessionToken(token);
    const session = await this.users.findSession(idHash);
    if (!session) return null;
    const now = this.clock();
    const idleFor = now.getTime() - session.lastSeenAt.getTime();
    if (session.expiresAt <= now || idleFor >= this.policy.idleTimeoutMs) {
      await this.users.deleteSession(idHash);
      return null;
    }
    if (idleFor >= Math.min(MAX_TOUCH_INTERVAL_MS, this.policy.idleTimeoutMs / 10)) await this.users.touchSession(idHash, now);
    return toPrincipal(session);
  }

  /** Deletes every session past its expiry (they are refused anyway; this keeps the table small). */
  async purgeExpired(): Promise<number> {
    const now = this.clock();
    return this.users.deleteExpiredSessions(now, new Date(now.getTime() - this.policy.idleTimeoutMs));
  }

  private async principalOf(idHash: string): Promise<SessionPrincipal | null> {
    const session = await this.users.findSession(idHash);
    return session ? toPrincipal(session) : null;
  }
}

function toPrincipal(session: NonNullable<Awaited<ReturnType<UserRepository["findSession"]>>>): SessionPrincipal {
  return {
    sessionId: session.idHash,
    user: { id: session.user.id, email: session.user.email, role: session.user.role },
    merchant: { id: session.user.merchant.id, name: session.user.merchant.name },
  };
}
