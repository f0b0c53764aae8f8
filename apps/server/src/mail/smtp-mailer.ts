import nodemailer from 'nodemailer';
import type { Mailer, MailMessage } from './mailer.ts';

/** Sends through an SMTP server given as a URL (smtp://user:pass@host:port or smtps://...). */
export function createSmtpMailer(smtpUrl: string, from: string): Mailer {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send({ to, subject, text }: MailMessage) {
      await transport.sendMail({ from, to, subject, text });
    },
    async close() {
      transport.close();
    },
  };
}
