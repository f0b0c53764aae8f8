/**
 * A session's name as people see it: the name it was given, else "Session 2026-11-23 08:05" from when it was
 * made (local time). The API names a session that has none by its id, which means nothing to a researcher.
 */
export function sessionDisplayName(session: {
  id: string;
  sessionName?: string | undefined;
  created_at: string;
}): string {
  if (session.sessionName && session.sessionName !== session.id) return session.sessionName;
  const created = new Date(session.created_at);
  const two = (value: number) => String(value).padStart(2, '0');
  return `Session ${created.getFullYear()}-${two(created.getMonth() + 1)}-${two(created.getDate())} ${two(created.getHours())}:${two(created.getMinutes())}`;
}
