const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** §9 date format 'MMM. DD, YYYY', in the viewer's time zone. */
export function formatDate(iso: string): string {
  const date = new Date(iso);
  return `${MONTHS[date.getMonth()]}. ${String(date.getDate()).padStart(2, '0')}, ${date.getFullYear()}`;
}

/** §9 date format 'MMM. DD, YYYY, h:mm a' (for example 'Nov. 02, 2026, 5:07 pm'). */
export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  const hours = date.getHours();
  const minutes = String(date.getMinutes()).padStart(2, '0');
  return `${formatDate(iso)}, ${hours % 12 === 0 ? 12 : hours % 12}:${minutes} ${hours < 12 ? 'am' : 'pm'}`;
}
