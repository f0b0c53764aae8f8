/** A camera or trial name as a file-name part: letters, digits, '-' and '_' kept, anything else '_'. */
export function fileSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]+/g, '_') || 'camera';
}
