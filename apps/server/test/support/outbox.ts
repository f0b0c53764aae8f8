import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The decoded body of an RFC 822 message as nodemailer writes it (7bit or quoted-printable text). */
export function messageText(raw: string): string {
  const [headers, ...bodyParts] = raw.split(/\r?\n\r?\n/);
  const body = bodyParts.join('\n\n');
  if (/content-transfer-encoding:\s*quoted-printable/i.test(headers)) {
    return body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  if (/content-transfer-encoding:\s*base64/i.test(headers))
    return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

export function recipientOf(raw: string): string {
  return /^To:\s*(.+)$/im.exec(raw)?.[1].trim() ?? '';
}

/** Reads the .eml files of an outbox folder, oldest first. */
export function readOutbox(outboxDir: string): { to: string; text: string }[] {
  let files: string[];
  try {
    files = readdirSync(outboxDir)
      .filter((file) => file.endsWith('.eml'))
      .sort();
  } catch {
    return [];
  }
  return files.map((file) => {
    const raw = readFileSync(join(outboxDir, file), 'utf8');
    return { to: recipientOf(raw), text: messageText(raw) };
  });
}

export function codeIn(text: string): string {
  const match = /verification code is (\d{6})/.exec(text);
  if (!match) throw new Error(`No verification code in: ${text}`);
  return match[1];
}

export function resetLinkIn(text: string): string {
  const match = /(https?:\/\/\S+\/new-password\/\S+)/.exec(text);
  if (!match) throw new Error(`No reset link in: ${text}`);
  return match[1];
}
