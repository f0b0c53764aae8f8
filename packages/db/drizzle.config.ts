import { defineConfig } from 'drizzle-kit';

// `npx drizzle-kit generate --config packages/db/drizzle.config.ts` writes a new migration after a schema change.
export default defineConfig({
  dialect: 'postgresql',
  schema: './packages/db/src/schema.ts',
  out: './packages/db/migrations',
});
