import type { Trial } from '@kinetrace/contracts';
import { Button, Group, Modal, MultiSelect, Stack } from '@mantine/core';
import { useState } from 'react';
import { useTagList } from '../../api/tag-lists.ts';
import { useModifyTrialTags } from '../../api/trials.ts';
import { reportError } from '../../app/report-error.ts';

/** §2.13 tags dialog: trial tags from trialTags.json; Apply Tags stays disabled while none is selected (§5). */
export function TrialTagsDialog({ trial, onClose }: { trial: Trial; onClose: () => void }) {
  const trialTags = useTagList('trials');
  const modifyTags = useModifyTrialTags();
  const [tags, setTags] = useState<string[]>(trial.tags);

  const apply = () =>
    modifyTags.mutate(
      { id: trial.id, trialNewTags: tags },
      { onSuccess: onClose, onError: (error) => reportError(error, 'Could not change the tags of the trial.') },
    );

  return (
    <Modal opened onClose={onClose} title={`Tags of trial ${trial.name}`} centered>
      <Stack>
        <MultiSelect label="Trial tags" searchable data={trialTags.data ?? []} value={tags} onChange={setTags} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={apply} disabled={tags.length === 0} loading={modifyTags.isPending}>
            Apply Tags
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
