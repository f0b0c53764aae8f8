import type { RecordedVideo } from './trial-recorder.ts';

/**
 * Recorded videos kept in the phone's IndexedDB until their upload finished, so that a reloaded page, a
 * crashed tab or a dropped connection does not lose a trial: the page uploads (or resumes) them again.
 */
const DATABASE = 'kinetrace-capture';
const STORE = 'pending-videos';

function openDatabase(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: 'trialId' });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB could not be opened'));
  });
}

async function inStore<Answer>(
  mode: IDBTransactionMode,
  act: (store: IDBObjectStore) => IDBRequest<Answer>,
): Promise<Answer> {
  const database = await openDatabase();
  try {
    return await new Promise<Answer>((resolve, reject) => {
      const transaction = database.transaction(STORE, mode);
      const request = act(transaction.objectStore(STORE));
      transaction.oncomplete = () => resolve(request.result);
      transaction.onerror = () => reject(transaction.error ?? new Error('IndexedDB transaction failed'));
    });
  } finally {
    database.close();
  }
}

export const pendingVideos = {
  save: (video: RecordedVideo) => inStore('readwrite', (store) => store.put(video)).then(() => undefined),
  all: () => inStore<RecordedVideo[]>('readonly', (store) => store.getAll() as IDBRequest<RecordedVideo[]>),
  remove: (trialId: string) => inStore('readwrite', (store) => store.delete(trialId)).then(() => undefined),
};
