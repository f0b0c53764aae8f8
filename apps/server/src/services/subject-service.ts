import {
  GENDER_OPTIONS,
  messages,
  SEX_OPTIONS,
  subjectDisplayName,
  type Subject,
  type subjectInputSchema,
  type subjectListQuerySchema,
} from '@kinetrace/contracts';
import type { z } from 'zod';
import { notFound } from '../http/http-errors.ts';
import type { SessionsRepository } from '../repositories/sessions-repository.ts';
import type { SubjectRow, SubjectsRepository } from '../repositories/subjects-repository.ts';
import { subjectAccess, type Viewer } from './access.ts';
import type { AuthContext } from './auth-service.ts';
import { newRandomToken } from './secrets.ts';

type SubjectInput = z.output<typeof subjectInputSchema>;
type SubjectListQuery = z.output<typeof subjectListQuerySchema>;

export function toSubject(row: SubjectRow, sessionsCount: number, isOwner: boolean): Subject {
  const subject = { name: row.name, weight: row.weightKg, height: row.heightM, birth_year: row.birthYear };
  return {
    id: row.id,
    ...subject,
    sex_at_birth: row.sexAtBirth,
    gender: row.gender,
    sex_display: row.sexAtBirth ? (SEX_OPTIONS[row.sexAtBirth as keyof typeof SEX_OPTIONS] ?? row.sexAtBirth) : '',
    gender_display: row.gender ? (GENDER_OPTIONS[row.gender as keyof typeof GENDER_OPTIONS] ?? row.gender) : '',
    characteristics: row.characteristics,
    subject_tags: row.subjectTags,
    terms: row.terms,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    display_name: subjectDisplayName(subject),
    trashed: row.trashed,
    trashed_at: row.trashedAt?.toISOString() ?? null,
    share_token: isOwner ? row.shareToken : null,
    sessions_count: sessionsCount,
  };
}

export interface SubjectServiceDeps {
  subjects: SubjectsRepository;
  sessions: SessionsRepository;
  now: () => Date;
}

export function createSubjectService({ subjects, sessions, now }: SubjectServiceDeps) {
  /** The caller's own subject; anything else is "not found". */
  async function ownSubject(context: AuthContext, id: number): Promise<SubjectRow> {
    const row = await subjects.findById(id);
    if (!row || row.userId !== context.user.id) throw notFound(messages.subjectNotFound);
    return row;
  }

  const fieldsOf = (input: SubjectInput) => ({
    name: input.name,
    weightKg: input.weight,
    heightM: input.height,
    birthYear: input.birth_year,
    sexAtBirth: input.sex_at_birth,
    gender: input.gender,
    characteristics: input.characteristics,
    subjectTags: input.subject_tags,
    terms: input.terms,
  });

  async function present(row: SubjectRow, isOwner = true): Promise<Subject> {
    return toSubject(row, await subjects.sessionsCount(row.id), isOwner);
  }

  return {
    ownSubject,

    async list(context: AuthContext, query: SubjectListQuery) {
      let firstId: number | undefined;
      if (query.session_id) {
        const session = await sessions.findById(query.session_id);
        if (session && session.userId === context.user.id && session.subjectId !== null) firstId = session.subjectId;
      }
      const { rows, total } = await subjects.list({
        userId: context.user.id,
        search: query.search,
        includeTrashed: query.include_trashed,
        sort: query.sort,
        sortDesc: query.sort_desc,
        start: query.start,
        quantity: query.quantity,
        firstId,
      });
      return { subjects: rows.map((row) => toSubject(row, row.sessionsCount, true)), total };
    },

    async get(viewer: Viewer, id: number): Promise<Subject> {
      const row = await subjects.findById(id);
      const access = row && subjectAccess(row, viewer);
      if (!row || !access) throw notFound(messages.subjectNotFound);
      return present(row, access === 'owner');
    },

    async create(context: AuthContext, input: SubjectInput): Promise<Subject> {
      const row = await subjects.insert({
        userId: context.user.id,
        ...fieldsOf(input),
        shareToken: newRandomToken(),
      });
      return present(row);
    },

    async update(context: AuthContext, id: number, input: SubjectInput): Promise<Subject> {
      await ownSubject(context, id);
      return present(await subjects.update(id, fieldsOf(input)));
    },

    async trash(context: AuthContext, id: number): Promise<Subject> {
      await ownSubject(context, id);
      return present(await subjects.update(id, { trashed: true, trashedAt: now() }));
    },

    async restore(context: AuthContext, id: number): Promise<Subject> {
      await ownSubject(context, id);
      return present(await subjects.update(id, { trashed: false, trashedAt: null }));
    },

    /** A new share link: whoever holds the previous one loses access at once (its media URLs too). */
    async replaceShareToken(context: AuthContext, id: number): Promise<Subject> {
      await ownSubject(context, id);
      return present(await subjects.update(id, { shareToken: newRandomToken() }));
    },

    /** No share link until the owner makes a new one: whoever holds the current one loses access at once. */
    async revokeShareToken(context: AuthContext, id: number): Promise<Subject> {
      await ownSubject(context, id);
      return present(await subjects.update(id, { shareToken: null }));
    },

    /** Removes the subject; its sessions stay, without a subject. */
    async permanentRemove(context: AuthContext, id: number): Promise<void> {
      await ownSubject(context, id);
      await subjects.remove(id);
    },

    async tags(viewer: Viewer, id: number): Promise<{ tag: string }[]> {
      const subject = await this.get(viewer, id);
      return subject.subject_tags.map((tag) => ({ tag }));
    },
  };
}

export type SubjectService = ReturnType<typeof createSubjectService>;
