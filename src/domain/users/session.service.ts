import { createHash } from "node:crypto";
import type { Logger } from "pino";
import { SignInThrottledError, UnauthorizedError } from "../errors.ts";
import type { AttemptCounter } from "./attempt-counter.ts";
import { dummyPasswordHash, PASSWORD_MAX_LENGTH, verifyPassword } from "./password.ts";
import { generateSessionToken, hashSessionToken, isSessionTokenFormat } from "./session-token.ts";
import type { UserRepository, UserRole } from "./user.repository.ts";
import { normaliseEmail } from "./user.service.ts";
import type { AuditSource } from "../audit/audit-log.ts";
import type { SessionEnds } from "./session-ends.ts";

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
  /**
   * maxPerPair: failures per (e-mail, address); maxPerEmail: failures per e-mail from all addresses (the higher
   * ceiling, so one address cannot lock a user out); maxPerAddress: attempts per address, whatever the e-mail.
   */
  signInRateLimit: { maxPerPair: number; maxPerEmail: number; maxPerAddress: number; windowMs: number };
}

/** From this many failures of one (e-mail, address), each further failure makes the next try wait, doubling. */
const DELAY_AFTER_FAILURES = 3;
const FIRST_DELAY_MS = 1_000;
const MAX_DELAY_MS = 60_000;

/** Sessions one user may hold (browsers, devices); the oldest beyond are signed out at the next sign-in. */
export const MAX_SESSIONS_PER_USER = 20;
/** `lastSeenAt` is written at most this often per session (idle expiry is that much less precise). */
const MAX_TOUCH_INTERVAL_MS = 60_000;

/**
 * Console sign-in and sessions (SPEC §10, §14). Every outcome of a sign-in is an audit log line (`audit: true`,
 * never the password), and a success or a known user's failure an entry of the merchant's audit log. A wrong e-mail
 * and a wrong password are one answer in the same time: unknown e-mails are verified against a dummy hash.
 * Throttling (SPEC §14): failures count per (e-mail, address), with a higher ceiling per e-mail over all addresses
 * and growing delays after a few failures; all attempts count per address; a success resets its address's count.
 */
export class SessionService {
  private readonly audit: Logger;

  constructor(
    private readonly users: UserRepository,
    private readonly attempts: AttemptCounter,
    private readonly policy: SessionPolicy,
    logger: Logger,
    private readonly clock: () => Date = () => new Date(),
    private readonly ends: SessionEnds | null = null,
  ) {
    this.audit = logger.child({ component: "console-auth", audit: true });
    // Computed now, so the first unknown e-mail does not take twice as long as a wrong password.
    void dummyPasswordHash();
  }

  async signIn(emailText: string, password: string, address: string): Promise<SignedIn> {
    const email = normaliseEmail(emailText);
    const { maxPerPair, maxPerEmail, maxPerAddress, windowMs } = this.policy.signInRateLimit;
    const emailHash = createHash("sha256").update(email).digest("hex");
    const emailKey = `email:${emailHash}`;
    const pairKey = `pair:${emailHash}:${address}`;
    const delayKey = `delay:${emailHash}:${address}`;
    const fromAddress = await this.attempts.hit(`address:${address}`, windowMs);
    const [forEmail, forPair, delay] = await Promise.all([
      this.attempts.peek(emailKey),
      this.attempts.peek(pairKey),
      this.attempts.peek(delayKey),
    ]);
    const throttledFor =
      fromAddress.count > maxPerAddress
        ? fromAddress.resetInMs
        : forPair.count >= maxPerPair
          ? forPair.resetInMs
          : forEmail.count >= maxPerEmail
            ? forEmail.resetInMs
            : delay.count > 0
              ? delay.resetInMs
              : null;
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
    const source: AuditSource = { actor: { kind: "user", id: user?.id ?? null, label: email }, address };
    if (!user || !matches) {
      const [pairFailures] = await Promise.all([this.attempts.hit(pairKey, windowMs), this.attempts.hit(emailKey, windowMs)]);
      if (pairFailures.count >= DELAY_AFTER_FAILURES) {
        const wait = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (pairFailures.count - DELAY_AFTER_FAILURES));
        await this.attempts.hit(delayKey, wait);
      }
      if (user) await this.users.recordFailedSignIn(user, source);
      this.audit.warn(
        { event: "sign_in.failed", email, address, reason: user ? "wrong_password" : "unknown_email" },
        "console sign-in failed",
      );
      throw new UnauthorizedError("credentials");
    }
    // This address proved it knows the password: its own failures no longer count (others' still do).
    await Promise.all([this.attempts.reset(pairKey), this.attempts.reset(delayKey)]);

    const now = this.clock();
    const token = generateSessionToken();
    const sessionId = hashSessionToken(token);
    const expiresAt = new Date(now.getTime() + this.policy.maxAgeMs);
    await this.users.pruneSessions(user.id, now, new Date(now.getTime() - this.policy.idleTimeoutMs), MAX_SESSIONS_PER_USER - 1);
    await this.users.insertSession({ idHash: sessionId, userId: user.id, merchantId: user.merchantId, now, expiresAt }, source);
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
    // Its websockets close now, on every instance (4403), not at their next periodic check.
    if (ended) this.ends?.ended([hashSessionToken(token)]);
    if (ended && principal) {
      this.audit.info({ event: "sign_out", userId: principal.user.id, merchantId: principal.merchant.id }, "console sign-out");
    }
    return ended;
  }

  /**
   * The principal of a session cookie, or null when it is malformed, unknown, signed out, revoked (password
   * change, user removed) or expired (idle or absolute; an expired session is deleted on sight). Read from the
   * database on every call, so a revocation is effective at once on every instance. `touch: false` (the websockets'
   * periodic re-check) never extends the session: only what the person does keeps it alive.
   */
  async authenticate(token: string | undefined, options: { touch?: boolean } = {}): Promise<SessionPrincipal | null> {
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
    if (options.touch !== false && idleFor >= Math.min(MAX_TOUCH_INTERVAL_MS, this.policy.idleTimeoutMs / 10)) {
      await this.users.touchSession(idHash, now);
    }
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
