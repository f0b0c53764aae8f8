import { and, desc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import { schema, type Database } from '@kinetrace/db';
import type { ChangeCache } from './change-cache.ts';

const { authTokens, otpChallenges, rememberedDevices, passwordResets } = schema;

export type AuthTokenRow = typeof authTokens.$inferSelect;
export interface SignIn {
  token: AuthTokenRow;
  user: typeof schema.users.$inferSelect;
}
export type OtpChallengeRow = typeof otpChallenges.$inferSelect;

/**
 * Logins, e-mailed codes, remembered devices and password-reset links: all stored by hash only. Live
 * logins come through `signIns` when there is one (change-cache.ts).
 */
export function createAuthRepository(db: Database, signIns?: ChangeCache<SignIn | undefined>) {
  /** The login with this hash and its user, in one query built once (every authenticated request asks it), when live at `now`. */
  const liveToken = db
    .select({ token: authTokens, user: schema.users })
    .from(authTokens)
    .innerJoin(schema.users, eq(schema.users.id, authTokens.userId))
    .where(
      and(
        eq(authTokens.tokenHash, sql.placeholder('tokenHash')),
        isNull(authTokens.revokedAt),
        gt(authTokens.expiresAt, sql.placeholder('now')),
      ),
    )
    .prepare('live_token');
  async function readLiveToken(tokenHash: string, now: Date): Promise<SignIn | undefined> {
    const [row] = await liveToken.execute({ tokenHash, now: now.toISOString() });
    return row;
  }

  return {
    async insertToken(userId: number, tokenHash: string, expiresAt: Date, verified: boolean): Promise<AuthTokenRow> {
      const [row] = await db.insert(authTokens).values({ userId, tokenHash, expiresAt, verified }).returning();
      return row;
    },
    /**
     * The live token with this hash (not revoked, not expired) and its user: every authenticated request
     * asks this first. A kept login is dropped when it or its user changes, and its expiry is checked here.
     */
    async findLiveToken(tokenHash: string, now: Date): Promise<SignIn | undefined> {
      const found = signIns
        ? await signIns.get(
            tokenHash,
            () => readLiveToken(tokenHash, now),
            (signIn) => signIn?.user.id,
          )
        : await readLiveToken(tokenHash, now);
      return found && found.token.expiresAt > now ? found : undefined;
    },
    async markTokenVerified(tokenId: number): Promise<void> {
      await db.update(authTokens).set({ verified: true }).where(eq(authTokens.id, tokenId));
    },
    async revokeToken(tokenId: number, now: Date): Promise<void> {
      await db.update(authTokens).set({ revokedAt: now }).where(eq(authTokens.id, tokenId));
    },
    /** After a new password: every login of the user ends and every device they had remembered must enter a code again. */
    async endEverySignIn(userId: number, now: Date): Promise<void> {
      await db.transaction(async (tx) => {
        await tx
          .update(authTokens)
          .set({ revokedAt: now })
          .where(and(eq(authTokens.userId, userId), isNull(authTokens.revokedAt)));
        await tx.delete(rememberedDevices).where(eq(rememberedDevices.userId, userId));
      });
    },

    /** A new code for a login; any earlier unused code of that login stops working. */
    async replaceChallenge(authTokenId: number, codeHash: string, expiresAt: Date, now: Date): Promise<void> {
      await db.transaction(async (tx) => {
        await tx
          .update(otpChallenges)
          .set({ usedAt: now })
          .where(and(eq(otpChallenges.authTokenId, authTokenId), isNull(otpChallenges.usedAt)));
        await tx.insert(otpChallenges).values({ authTokenId, codeHash, expiresAt });
      });
    },
    async findOpenChallenge(authTokenId: number): Promise<OtpChallengeRow | undefined> {
      const [row] = await db
        .select()
        .from(otpChallenges)
        .where(and(eq(otpChallenges.authTokenId, authTokenId), isNull(otpChallenges.usedAt)))
        .orderBy(desc(otpChallenges.id))
        .limit(1);
      return row;
    },
    /** Counts a wrong try atomically, so parallel guesses cannot exceed the limit; returns the new count. */
    async countWrongAttempt(challengeId: number): Promise<number> {
      const [row] = await db
        .update(otpChallenges)
        .set({ wrongAttempts: sqlIncrement() })
        .where(eq(otpChallenges.id, challengeId))
        .returning({ wrongAttempts: otpChallenges.wrongAttempts });
      return row.wrongAttempts;
    },
    /** Marks the code used; false when someone else used it first. */
    async consumeChallenge(challengeId: number, now: Date): Promise<boolean> {
      const rows = await db
        .update(otpChallenges)
        .set({ usedAt: now })
        .where(and(eq(otpChallenges.id, challengeId), isNull(otpChallenges.usedAt)))
        .returning({ id: otpChallenges.id });
      return rows.length === 1;
    },

    async insertRememberedDevice(userId: number, tokenHash: string, expiresAt: Date): Promise<void> {
      await db.insert(rememberedDevices).values({ userId, tokenHash, expiresAt });
    },
    async isDeviceRemembered(userId: number, tokenHash: string, now: Date): Promise<boolean> {
      const rows = await db
        .select({ id: rememberedDevices.id })
        .from(rememberedDevices)
        .where(
          and(
            eq(rememberedDevices.userId, userId),
            eq(rememberedDevices.tokenHash, tokenHash),
            gt(rememberedDevices.expiresAt, now),
          ),
        );
      return rows.length > 0;
    },

    async insertPasswordReset(userId: number, tokenHash: string, expiresAt: Date): Promise<void> {
      await db.insert(passwordResets).values({ userId, tokenHash, expiresAt });
    },
    /** Uses a reset link once: returns its user, or undefined when unknown, used or expired. */
    async consumePasswordReset(tokenHash: string, now: Date): Promise<number | undefined> {
      const [row] = await db
        .update(passwordResets)
        .set({ usedAt: now })
        .where(
          and(
            eq(passwordResets.tokenHash, tokenHash),
            isNull(passwordResets.usedAt),
            gt(passwordResets.expiresAt, now),
          ),
        )
        .returning({ userId: passwordResets.userId });
      return row?.userId;
    },

    /** Drops rows that can no longer be used, so the tables don't grow without bound. */
    async purgeExpired(now: Date): Promise<void> {
      await db.delete(authTokens).where(or(lt(authTokens.expiresAt, now), lt(authTokens.revokedAt, now)));
      await db.delete(rememberedDevices).where(lt(rememberedDevices.expiresAt, now));
      await db.delete(passwordResets).where(lt(passwordResets.expiresAt, now));
    },
  };
}

function sqlIncrement() {
  return sql`${otpChallenges.wrongAttempts} + 1`;
}

export type AuthRepository = ReturnType<typeof createAuthRepository>;
