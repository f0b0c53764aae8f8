import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { schema, type Database } from '@kinetrace/db';

const { instanceSecrets } = schema;

export function createSecretsRepository(db: Database) {
  return {
    /** The named secret, made on first use; every server sharing the database gets the same one. */
    async getOrCreate(name: string): Promise<string> {
      await db
        .insert(instanceSecrets)
        .values({ name, value: randomBytes(32).toString('base64url') })
        .onConflictDoNothing();
      const [row] = await db.select().from(instanceSecrets).where(eq(instanceSecrets.name, name));
      return row.value;
    },
  };
}
