import { OTP_TTL_MS, PASSWORD_RESET_TTL_MS, REMEMBER_DEVICE_MS, UNLOCK_LINK_TTL_MS } from '@kinetrace/contracts';
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

/** To an account's owner when someone tried to register another account with their address. */
export function registrationAttemptMail(
  to: string,
  providerName: string,
  username: string,
  publicUrl: string,
): MailMessage {
  return {
    to,
    subject: `${providerName}: someone tried to create an account with your e-mail address`,
    text: [
      `Someone tried to create a new ${providerName} account with this e-mail address, which already belongs to your account ${username}. No account was created.`,
      '',
      `If it was you, log in at ${publicUrl}/login, or choose a new password at ${publicUrl}/reset-password.`,
      'If it was not you, you can ignore this message: nothing has changed.',
    ].join('\n'),
    logHint: `registration attempt with the address of ${username}`,
  };
}

/** To an account's owner who asked, on Login, for a way through the limits that many wrong passwords set. */
export function unlockLinkMail(to: string, providerName: string, username: string, link: string): MailMessage {
  return {
    to,
    subject: `${providerName}: log in despite the wrong passwords`,
    text: [
      `Many wrong passwords were tried for your ${providerName} account ${username}, so logins from browsers it does not know are held back for a while.`,
      '',
      'To log in now, open this link in the browser you log in with:',
      '',
      link,
      '',
      `The link works once and expires in ${minutes(UNLOCK_LINK_TTL_MS)} minutes. The browser that opens it is remembered for your account for ${Math.round(REMEMBER_DEVICE_MS / 86_400_000)} days: it may log in whatever passwords others try, without an e-mailed code.`,
      'If you did not ask for this link, ignore this message; choosing a new password forgets every remembered browser.',
    ].join('\n'),
    logHint: `login unlock link ${link}`,
  };
}
