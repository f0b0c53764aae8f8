import { basename } from 'node:path';
import type { ResultFile } from './trial-io.ts';

const safe = (text: string, also = '') => text.replace(new RegExp(`[^A-Za-z0-9_${also}-]+`, 'g'), '_');

/**
 * Each result's file name as it is stored (under its attempt and tag): its own name made safe, and
 * where two results of a tag share one (per-camera files), the camera's name before it. The in-process
 * runner and a remote worker name them alike, so a retried upload lands on the same file.
 */
export function resultFileNames(results: ResultFile[]): string[] {
  const used = new Set<string>();
  return results.map((result) => {
    const name = safe(basename(result.path), '.');
    let unique = name;
    if (used.has(`${result.tag}/${unique}`) && result.cameraName) unique = `${safe(result.cameraName)}-${name}`;
    used.add(`${result.tag}/${unique}`);
    return unique;
  });
}
