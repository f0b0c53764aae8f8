import { createHash, randomBytes, randomInt } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { OTP_CODE_LENGTH } from '@kinetrace/contracts';

/** Bearer tokens, reset links and device tokens: 256 random bits, stored as SHA-256 (enough for random secrets). */
export function newRandomToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashRandomToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function newOtpCode(): string {
  return String(randomInt(0, 10 ** OTP_CODE_LENGTH)).padStart(OTP_CODE_LENGTH, '0');
}

// Argon2id with OWASP's minimum recommended parameters (19 MiB, 2 iterations, 1 lane), the
// library's defaults: Password Storage Cheat Sheet, OWASP 2023. Algorithm 2 is Argon2id (a const enum).
const argon2Options = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** Passwords and short codes (guessable if merely SHA-hashed) are stored with a slow, salted hash. */
export function slowHash(secret: string): Promise<string> {
  return hash(secret, argon2Options);
}

export function verifySlowHash(storedHash: string, secret: string): Promise<boolean> {
  return verify(storedHash, secret).catch(() => false);
}

/** A real hash of nothing, so an unknown username costs as much time as a wrong password. */
let decoyHash: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoyHash ??= slowHash(newRandomToken());
  return decoyHash;
}
