import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrationsFolder, openDatabase, pgliteDirectoryOf } from '@kinetrace/db';

const templatesRoot = fileURLToPath(new URL('../../../../.tmp/pglite-templates', import.meta.url));

/** The template's name: it is good for as long as the migrations and the PGlite release are the same. */
function templateKey(): string {
  const hash = createHash('sha256');
  // PGlite's entry module stands for its release (its package.json is not exported).
  hash.update(readFileSync(createRequire(import.meta.url).resolve('@electric-sql/pglite')));
  for (const file of readdirSync(migrationsFolder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort())
    hash.update(file.slice(migrationsFolder.length)).update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

let template: Promise<string> | undefined;

/**
 * A new embedded database, migrated, made once by the server's own code (initdb and every migration)
 * and kept under .tmp: a fresh one costs about 8 s of initdb and migrations, a copy under 1 s, and
 * the API and browser tests start well over a hundred servers.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const dataDir = join(templatesRoot, templateKey());
    if (existsSync(pgliteDirectoryOf(dataDir))) return dataDir;
    // Built aside and renamed into place, so that a test process running beside this one never copies a half-made one.
    const building = `${dataDir}.building-${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    await (await openDatabase({ dataDir: building })).close();
    try {
      renameSync(building, dataDir);
    } catch (error) {
      if (!existsSync(pgliteDirectoryOf(dataDir))) throw error;
      rmSync(building, { recursive: true, force: true });
    }
    return dataDir;
  })();
  return template;
}

/** Gives the data folder `dataDir` a new embedded database, migrated, as the server would make on first start. */
export async function seedEmbeddedDatabase(dataDir: string): Promise<void> {
  cpSync(pgliteDirectoryOf(await migratedTemplate()), pgliteDirectoryOf(dataDir), { recursive: true });
}
