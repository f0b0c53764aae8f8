import { eq, sql } from 'drizzle-orm';
import { schema, type Database } from '@kinetrace/db';

export type UserRow = typeof schema.users.$inferSelect;
export type NewUser = typeof schema.users.$inferInsert;
export type UserChanges = Partial<Omit<NewUser, 'id' | 'createdAt'>>;

const { users } = schema;

export function createUsersRepository(db: Database) {
  return {
    async findById(id: number): Promise<UserRow | undefined> {
      const [row] = await db.select().from(users).where(eq(users.id, id));
      return row;
    },
    async findByUsername(username: string): Promise<UserRow | undefined> {
      const [row] = await db
        .select()
        .from(users)
        .where(sql`lower(${users.username}) = lower(${username})`);
      return row;
    },
    async findByEmail(email: string): Promise<UserRow | undefined> {
      const [row] = await db
        .select()
        .from(users)
        .where(sql`lower(${users.email}) = lower(${email})`);
      return row;
    },
    /** Inserts the user unless another has its username or e-mail address (whatever the case): undefined then. */
    async insertUnlessTaken(user: NewUser): Promise<UserRow | undefined> {
      const [row] = await db.insert(users).values(user).onConflictDoNothing().returning();
      return row;
    },
    async update(id: number, changes: UserChanges): Promise<UserRow> {
      const [row] = await db.update(users).set(changes).where(eq(users.id, id)).returning();
      return row;
    },
    /** Removes the user; their tokens, codes, devices and resets go with them (ON DELETE CASCADE). */
    async remove(id: number): Promise<void> {
      await db.delete(users).where(eq(users.id, id));
    },
  };
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;
