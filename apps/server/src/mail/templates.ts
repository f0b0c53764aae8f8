import { OTP_TTL_MS, PASSWORD_RESET_TTL_MS } from '@kinetrace/contracts';
import type { MailMessage } from './mailer.ts';

const minutes = (ms: number) => Math.round(ms / 60_000);

export function verificationCodeMail(to: string, providerName: string, code: string): MailMessage {
  return {
    to,
    subject: `${providerName} verification code`,
    text: [
      `Your ${providerName} verification code is ${code}`,
      '',
      `It expires in ${minutes(OTP_TTL_MS)} minutes. If you did not try to log in, you can ignore this message; consider changing your password.`,
    ].join('\n'),
    logHint: `verification code ${code}`,
  };
}

export function passwordResetMail(to: string, providerName: string, link: string): MailMessage {
  return {
    to,
    subject: `${providerName} password reset`,
    text: [
      `To choose a new ${providerName} password, open this link:`,
      '',
      link,
      '',
      `The link works once and expires in ${minutes(PASSWORD_RESET_TTL_MS)} minutes. If you did not ask for a new password, ignore this message.`,
    ].join('\n'),
    logHint: `password reset link ${link}`,
  };
}
