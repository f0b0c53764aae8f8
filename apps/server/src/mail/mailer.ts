/** An e-mail as Kinetrace sends it: plain text, one recipient. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** A line safe to log in embedded mode so a first-time user on one machine can proceed (the code or link). */
  logHint?: string;
}

/** Sends e-mail; the outbox folder and SMTP are two implementations, chosen once from configuration. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}
