import { messages } from '@kinetrace/contracts';

/** A write refused because the disk (or the user's quota on it) is full: the server's state, not the request's fault. */
export function isOutOfSpace(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** HTTP 507 Insufficient Storage (RFC 4918): what every answer to a write the full disk refused says. */
export const OUT_OF_SPACE_STATUS = 507;

/** The same answer for tus, which sends what its hooks throw as `{ status_code, body }`. */
export const outOfSpaceTusError = () => ({
  status_code: OUT_OF_SPACE_STATUS,
  body: JSON.stringify({ detail: messages.serverOutOfSpace }),
});
