import { dataPaths, type Subject } from '@kinetrace/contracts';
import { ActionIcon, Menu } from '@mantine/core';
import { isSyncDownloadAllowed, useSyncDownload } from '../../app/sync-download.ts';

export type SubjectDialogKind = 'edit' | 'trash' | 'restore' | 'delete' | 'download' | 'replaceLink' | 'revokeLink';

export const subjectArchiveName = (id: number) => `subject_results_${id}.zip`;

/**
 * §2.17 row menu: Edit, Trash, Download for a subject in use; Restore, 'Delete permanently' once trashed.
 * A subject in use also has its share link replaced or revoked here (or made anew once revoked).
 */
export function SubjectMenu({ subject, onOpen }: { subject: Subject; onOpen: (kind: SubjectDialogKind) => void }) {
  const sync = useSyncDownload();
  return (
    <Menu position="bottom-end">
      <Menu.Target>
        <ActionIcon
          variant="subtle"
          color="gray"
          aria-label={`Actions for subject ${subject.name}`}
          onClick={(event) => event.stopPropagation()}
        >
          ⋮
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown onClick={(event) => event.stopPropagation()}>
        {subject.trashed ? (
          <>
            <Menu.Item onClick={() => onOpen('restore')}>Restore</Menu.Item>
            <Menu.Item color="red" onClick={() => onOpen('delete')}>
              Delete permanently
            </Menu.Item>
          </>
        ) : (
          <>
            <Menu.Item onClick={() => onOpen('edit')}>Edit</Menu.Item>
            <Menu.Item onClick={() => onOpen('trash')}>Trash</Menu.Item>
            <Menu.Item onClick={() => onOpen('download')}>Download data</Menu.Item>
            {isSyncDownloadAllowed() && (
              <Menu.Item
                disabled={sync.downloading}
                onClick={() =>
                  void sync.download(dataPaths.subjectAction(subject.id, 'download'), subjectArchiveName(subject.id))
                }
              >
                Download data (old)
              </Menu.Item>
            )}
            <Menu.Divider />
            <Menu.Item onClick={() => onOpen('replaceLink')}>
              {subject.share_token ? 'Replace share link' : 'Create share link'}
            </Menu.Item>
            {subject.share_token && (
              <Menu.Item color="red" onClick={() => onOpen('revokeLink')}>
                Revoke share link
              </Menu.Item>
            )}
          </>
        )}
      </Menu.Dropdown>
    </Menu>
  );
}
