import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { Mailer, MailMessage } from './mailer.ts';

/**
 * Embedded default: writes each message as an .eml file under `outboxDir` and logs its hint (the code
 * or link), so that someone running Kinetrace on one machine without SMTP can still log in.
 */
export function createOutboxMailer(outboxDir: string, from: string, log: (line: string) => void): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send({ to, subject, text, logHint }: MailMessage) {
      const info = await transport.sendMail({ from, to, subject, text });
      await mkdir(outboxDir, { recursive: true });
      const fileName = `${new Date().toISOString().replace(/[:.]/g, '-')}-${info.messageId.replace(/[^A-Za-z0-9]/g, '').slice(0, 24)}.eml`;
      const path = join(outboxDir, fileName);
      await writeFile(path, info.message as Buffer);
      log(`E-mail to ${to} ("${subject}") written to ${path}${logHint ? `: ${logHint}` : ''}`);
    },
    async close() {},
  };
}
