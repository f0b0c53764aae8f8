import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { followUpSchema, processingMessages, RESULT_TAGS } from '@kinetrace/contracts';
import type { SessionRowDb, SessionsRepository } from '../repositories/sessions-repository.ts';
import type { SubjectRow } from '../repositories/subjects-repository.ts';
import type { TrialsRepository } from '../repositories/trials-repository.ts';
import type { FileStore } from '../storage/file-store.ts';
import { disclosed, fileKind, sharedTag, type Disclosure, type SessionView } from './access.ts';
import type { OpenCapSessions } from './opencap-session.ts';
import { resultPath, safeName, videoPath } from './archive-layout.ts';
import { sessionNameOf } from './presenters.ts';

/** One file of an archive: its path inside the zip and where its bytes come from. */
interface ArchiveEntry {
  name: string;
  content: Buffer | { key: string; sizeBytes: number };
}

export interface Archive {
  fileName: string;
  totalBytes: number;
  /**
   * A digest of what the archive holds (every entry's name, and its bytes or the stored file and size):
   * the same viewer gets the same digest while what they may download is unchanged.
   */
  digest: string;
  /** Streams the zip into `output`, one stored file open at a time, so memory stays flat whatever the size. */
  write(output: Writable, onProgress?: (doneBytes: number, totalBytes: number) => void): Promise<void>;
}

/** Where the synchronised videos of a trial would be, the note saying why they are not (issue 24). */
const NOT_READY_FILE = 'NOT_READY.txt';

/** The note for a done trial whose synchronised videos are still being made, or could not be made. */
function followUpNote(trialName: string, stored: unknown): Buffer | null {
  const followUp = followUpSchema.safeParse(stored);
  if (!followUp.success) return null;
  const { status, percent, error_msg: error } = followUp.data;
  return Buffer.from(
    `${status === 'running' ? processingMessages.syncVideosPending(trialName, Math.round(percent)) : (error ?? processingMessages.syncVideosFailed)}\n`,
  );
}

/** Already-compressed media are stored as they are; text is deflated. */
const STORED_EXTENSIONS = /\.(mp4|mov|webm|mkv|avi|jpe?g|png|gif|webp|zip|gz)$/i;

export function createArchiveService(deps: {
  sessions: SessionsRepository;
  trials: TrialsRepository;
  files: FileStore;
  openCap: OpenCapSessions;
}) {
  const { sessions, trials, files, openCap } = deps;

  async function storedEntry(name: string, key: string | null): Promise<ArchiveEntry | null> {
    if (!key) return null;
    const sizeBytes = await files.size(key);
    return sizeBytes === null ? null : { name, content: { key, sizeBytes } };
  }

  /** Every entry of one session the disclosure allows, under `folder/`. Trashed trials are left out. */
  async function sessionEntries(
    session: SessionRowDb,
    disclosure: Disclosure,
    folder: string,
  ): Promise<ArchiveEntry[]> {
    const rows = (await trials.ofSession(session.id)).filter((trial) => !trial.trashed);
    const withFiles = await trials.withFiles(rows);
    const asOpenCap = await openCap.of(session);
    // The calibrated cameras keep their numbers; a phone that recorded without being calibrated comes after them.
    const cameras = new Map(asOpenCap.cameraIndex);
    const entries: (ArchiveEntry | null)[] = [];
    for (const { trial, videos, results } of withFiles) {
      for (const video of videos) {
        if (!cameras.has(video.deviceId)) cameras.set(video.deviceId, cameras.size);
        if (!disclosure.media) continue;
        const extension = video.storageKey?.split('.').at(-1) ?? 'mp4';
        entries.push(
          await storedEntry(
            `${folder}/${videoPath(cameras.get(video.deviceId)!, trial.name, extension)}`,
            video.storageKey,
          ),
        );
      }
      const note = followUpNote(trial.name, trial.meta.follow_up);
      if (note && disclosed(disclosure, fileKind({ kind: 'result', tag: RESULT_TAGS.videoSync })))
        entries.push({
          name: `${folder}/${resultPath(trial.name, RESULT_TAGS.videoSync, NOT_READY_FILE)}`,
          content: note,
        });
      for (const result of results) {
        if (!disclosed(disclosure, fileKind({ kind: 'result', tag: result.tag }))) continue;
        const fileName = result.storageKey?.split('/').at(-1) ?? result.tag;
        const deviceId = result.meta?.device_id;
        const place = {
          cameraIndex: typeof deviceId === 'string' ? cameras.get(deviceId) : undefined,
          scaledModelName: trial.id === asOpenCap.neutral?.id ? asOpenCap.modelName : undefined,
        };
        entries.push(
          await storedEntry(
            `${folder}/${resultPath(trial.name, sharedTag(result.tag), fileName, place)}`,
            result.storageKey,
          ),
        );
      }
    }
    const numbered = { ...asOpenCap, cameraIndex: cameras };
    return [
      {
        name: `${folder}/sessionMetadata.yaml`,
        content: Buffer.from(await openCap.metadataYaml(session, numbered, disclosure)),
      },
      // Beside the videos it numbers, and only with them.
      ...(cameras.size > 0 && disclosure.media
        ? [{ name: `${folder}/Videos/mappingCamDevice.pickle`, content: openCap.cameraMapping(numbered) }]
        : []),
      ...entries.filter((entry): entry is ArchiveEntry => entry !== null),
    ];
  }

  function archiveOf(fileName: string, entries: ArchiveEntry[]): Archive {
    const sizeOf = (entry: ArchiveEntry) =>
      Buffer.isBuffer(entry.content) ? entry.content.length : entry.content.sizeBytes;
    const totalBytes = entries.reduce((sum, entry) => sum + sizeOf(entry), 0);
    const digest = createHash('sha256');
    for (const entry of entries) {
      const content = Buffer.isBuffer(entry.content)
        ? createHash('sha256').update(entry.content).digest('hex')
        : `${entry.content.key}:${entry.content.sizeBytes}`;
      digest.update(`${entry.name}\n${content}\n`);
    }
    return {
      fileName,
      totalBytes,
      digest: digest.digest('base64url').slice(0, 22),
      async write(output, onProgress) {
        // Loaded at the first download: an idle server does not hold the zip library (issue 13, memory).
        const { ZipArchive } = await import('archiver');
        const archive = new ZipArchive({ zlib: { level: 6 } });
        const failed = new Promise<never>((_, reject) => archive.once('error', reject));
        failed.catch(() => undefined);
        archive.pipe(output);
        let doneBytes = 0;
        for (const entry of entries) {
          let content: Buffer | Readable;
          if (Buffer.isBuffer(entry.content)) content = entry.content;
          else {
            const file = await files.read(entry.content.key);
            if (!file) continue; // removed meanwhile: leave it out rather than fail the whole archive
            content = file.stream;
          }
          const added = once(archive, 'entry');
          archive.append(content, { name: entry.name, store: STORED_EXTENSIONS.test(entry.name) });
          await Promise.race([added, failed]);
          doneBytes += sizeOf(entry);
          onProgress?.(doneBytes, totalBytes);
        }
        const closed = once(output, 'close').catch(() => undefined);
        await Promise.race([archive.finalize(), failed]);
        await Promise.race([closed, failed, once(output, 'finish')]);
      },
    };
  }

  return {
    /** The session as the disclosure allows (access.ts: what a viewer may see). */
    async sessionArchive(session: SessionRowDb, disclosure: Disclosure): Promise<Archive> {
      const folder = safeName(sessionNameOf(session));
      return archiveOf(`${folder}.zip`, await sessionEntries(session, disclosure, folder));
    },

    /**
     * `subject_results_{id}.zip`: the subject's sessions each in its own folder, those `viewOf`
     * includes (a view) and as that view allows.
     */
    async subjectArchive(subject: SubjectRow, viewOf: (session: SessionRowDb) => SessionView | null): Promise<Archive> {
      const entries: ArchiveEntry[] = [];
      for (const id of await sessions.idsOfSubject(subject.id)) {
        const session = await sessions.findById(id);
        const view = session && viewOf(session);
        if (session && view) {
          entries.push(
            ...(await sessionEntries(
              session,
              view.disclosure,
              `${safeName(sessionNameOf(session))}_${session.id.slice(0, 8)}`,
            )),
          );
        }
      }
      return archiveOf(`subject_results_${subject.id}.zip`, entries);
    },
  };
}

export type ArchiveService = ReturnType<typeof createArchiveService>;
