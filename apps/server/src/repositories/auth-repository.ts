import { and, desc, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { schema, type Database } from '@kinetrace/db';
import type { ChangeCache } from './change-cache.ts';

const { authTokens, otpChallenges, rememberedDevices, passwordResets, loginUnlockLinks } = schema;

export type AuthTokenRow = typeof authTokens.$inferSelect;
export interface SignIn {
  token: AuthTokenRow;
  user: typeof schema.users.$inferSelect;
}
export type OtpChallengeRow = typeof otpChallenges.$inferSelect;

/**
 * Logins and personal API tokens, e-mailed codes, remembered devices, password-reset and login unlock links: all stored by hash only. Live
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
    /** A login begun at `createdAt` (the server's clock, which its expiry and its 30-day limit are counted on). */
    async insertToken(login: {
      userId: number;
      tokenHash: string;
      createdAt: Date;
      expiresAt: Date;
      verified: boolean;
    }): Promise<AuthTokenRow> {
      const [row] = await db.insert(authTokens).values(login).returning();
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
    /** A personal API token: verified from the start, since a verified login makes it. */
    async insertPersonalToken(
      userId: number,
      tokenHash: string,
      token: { name: string; readOnly: boolean; createdAt: Date; expiresAt: Date },
    ): Promise<AuthTokenRow> {
      const [row] = await db
        .insert(authTokens)
        .values({ userId, tokenHash, verified: true, kind: 'personal', ...token })
        .returning();
      return row;
    },
    /** The user's live personal tokens, oldest first. */
    async listPersonalTokens(userId: number, now: Date): Promise<AuthTokenRow[]> {
      return db
        .select()
        .from(authTokens)
        .where(
          and(
            eq(authTokens.userId, userId),
            eq(authTokens.kind, 'personal'),
            isNull(authTokens.revokedAt),
            gt(authTokens.expiresAt, now),
          ),
        )
        .orderBy(authTokens.id);
    },
    /** Revokes one of the user's live personal tokens: false when the user has no such token. */
    async revokePersonalToken(userId: number, tokenId: number, now: Date): Promise<boolean> {
      const rows = await db
        .update(authTokens)
        .set({ revokedAt: now })
        .where(
          and(
            eq(authTokens.id, tokenId),
            eq(authTokens.userId, userId),
            eq(authTokens.kind, 'personal'),
            isNull(authTokens.revokedAt),
          ),
        )
        .returning({ id: authTokens.id });
      return rows.length === 1;
    },
    async markTokenVerified(tokenId: number): Promise<void> {
      await db.update(authTokens).set({ verified: true }).where(eq(authTokens.id, tokenId));
    },
    /**
     * Moves a live login's expiry to `expiresAt`, in one statement that leaves a revoked login revoked (a logout
     * at the same moment wins): the new expiry, or undefined when the login was revoked meanwhile.
     */
    async extendToken(tokenId: number, expiresAt: Date): Promise<Date | undefined> {
      const [row] = await db
        .update(authTokens)
        .set({ expiresAt })
        .where(and(eq(authTokens.id, tokenId), isNull(authTokens.revokedAt)))
        .returning({ expiresAt: authTokens.expiresAt });
      return row?.expiresAt;
    },
    async revokeToken(tokenId: number, now: Date): Promise<void> {
      await db.update(authTokens).set({ revokedAt: now }).where(eq(authTokens.id, tokenId));
    },
    /**
     * After a new password: every login and personal token of the user ends (a token made by whoever had the old
     * password must not outlive it) and every device they had remembered must enter a code again.
     */
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
    /**
     * Counts a try of the code before it is compared, in one statement, so that parallel guesses (on one
     * server or several) cannot get more than `maxTries` compared: the try's number, or undefined when the
     * code has had its tries (or was used meanwhile). A right try uses the code, so the count is of wrong ones.
     */
    async countTry(challengeId: number, maxTries: number): Promise<number | undefined> {
      const [row] = await db
        .update(otpChallenges)
        .set({ wrongAttempts: sql`${otpChallenges.wrongAttempts} + 1` })
        .where(
          and(
            eq(otpChallenges.id, challengeId),
            isNull(otpChallenges.usedAt),
            lt(otpChallenges.wrongAttempts, maxTries),
          ),
        )
        .returning({ wrongAttempts: otpChallenges.wrongAttempts });
      return row?.wrongAttempts;
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
    /**
     * Uses a reset link once, and with it every other open link of its user, in one statement: a link
     * mailed before the password was set anew stops working, even one used at the same moment (it finds
     * its row already used). Returns the user, or undefined when the link is unknown, used or expired.
     */
    async consumePasswordReset(tokenHash: string, now: Date): Promise<number | undefined> {
      const ownerOfLink = db
        .select({ userId: passwordResets.userId })
        .from(passwordResets)
        .where(
          and(
            eq(passwordResets.tokenHash, tokenHash),
            isNull(passwordResets.usedAt),
            gt(passwordResets.expiresAt, now),
          ),
        );
      const used = await db
        .update(passwordResets)
        .set({ usedAt: now })
        .where(and(inArray(passwordResets.userId, ownerOfLink), isNull(passwordResets.usedAt)))
        .returning({ userId: passwordResets.userId, tokenHash: passwordResets.tokenHash });
      return used.find((link) => link.tokenHash === tokenHash)?.userId;
    },

    async insertUnlockLink(userId: number, tokenHash: string, expiresAt: Date): Promise<void> {
      await db.insert(loginUnlockLinks).values({ userId, tokenHash, expiresAt });
    },
    /** Uses an unlock link once: returns its user, or undefined when unknown, used or expired. */
    async consumeUnlockLink(tokenHash: string, now: Date): Promise<number | undefined> {
      const [row] = await db
        .update(loginUnlockLinks)
        .set({ usedAt: now })
        .where(
          and(
            eq(loginUnlockLinks.tokenHash, tokenHash),
            isNull(loginUnlockLinks.usedAt),
            gt(loginUnlockLinks.expiresAt, now),
          ),
        )
        .returning({ userId: loginUnlockLinks.userId });
      return row?.userId;
    },

    /** Drops rows that can no longer be used, so the tables don't grow without bound. */
    async purgeExpired(now: Date): Promise<void> {
      await db.delete(authTokens).where(or(lt(authTokens.expiresAt, now), lt(authTokens.revokedAt, now)));
      await db.delete(rememberedDevices).where(lt(rememberedDevices.expiresAt, now));
      await db.delete(passwordResets).where(lt(passwordResets.expiresAt, now));
      await db.delete(loginUnlockLinks).where(lt(loginUnlockLinks.expiresAt, now));
    },
  };
}

export type AuthRepository = ReturnType<typeof createAuthRepository>;
