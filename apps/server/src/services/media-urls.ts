import { createHmac, timingSafeEqual } from 'node:crypto';
import { SESSION_DURATION_MS } from '@kinetrace/contracts';

/**
 * Signed, expiring URLs for stored files, so that <video> and <img> elements (which cannot send the
 * Authorization header) and other hosts can fetch them: whoever may read a session gets URLs that
 * work for one login's length.
 */
export interface MediaUrlSigner {
  url(key: string): string;
  /** Whether a signature over this key and expiry is ours and not expired. */
  verify(key: string, expiresS: number, signature: string): boolean;
}

export const MEDIA_ROUTE = '/api/media/files/';

export function createMediaUrlSigner(secret: string, now: () => Date, lifetimeMs = SESSION_DURATION_MS): MediaUrlSigner {
  const sign = (key: string, expiresS: number) => createHmac('sha256', secret).update(`${key}\n${expiresS}`).digest('base64url');
  return {
    url(key) {
      // Rounded to the hour so that the same file keeps the same URL (and stays cached) for a while.
      const expiresS = Math.ceil((now().getTime() + lifetimeMs) / 3_600_000) * 3600;
      return `${MEDIA_ROUTE}${key}?expires=${expiresS}&signature=${sign(key, expiresS)}`;
    },
    verify(key, expiresS, signature) {
      if (!Number.isInteger(expiresS) || expiresS * 1000 < now().getTime()) return false;
      const expected = Buffer.from(sign(key, expiresS));
      const given = Buffer.from(signature);
      return expected.length === given.length && timingSafeEqual(expected, given);
    },
  };
}
