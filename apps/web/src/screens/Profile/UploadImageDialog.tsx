import { messages } from '@kinetrace/contracts';
import { Button, FileInput, Group, Image, Modal, Stack } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useUpdateProfilePicture } from '../../api/account.ts';
import { authStore } from '../../app/auth-store.ts';
import { reportError } from '../../app/report-error.ts';
import { toast } from '../../components/toasts.tsx';

/** §2.19 Upload Image popup: pick any image, preview it, save it as the profile picture. */
export function UploadImageDialog({
  username,
  opened,
  onClose,
}: {
  username: string;
  opened: boolean;
  onClose: () => void;
}) {
  const [picture, setPicture] = useState<File | null>(null);
  const [previewUrl, setPreviewUrl] = useState<string | null>(null);
  const updatePicture = useUpdateProfilePicture(username);

  useEffect(() => {
    if (!picture) return setPreviewUrl(null);
    const url = URL.createObjectURL(picture);
    setPreviewUrl(url);
    return () => URL.revokeObjectURL(url);
  }, [picture]);

  const close = () => {
    setPicture(null);
    onClose();
  };

  const save = async () => {
    if (!picture) return;
    try {
      const profile = await updatePicture.mutateAsync(picture);
      authStore.update({ profilePicture: profile.profile_picture });
      toast.success(messages.profilePictureUpdated);
      close();
    } catch (error) {
      reportError(error, `Error ${messages.profilePictureFailureContext}`);
    }
  };

  return (
    <Modal opened={opened} onClose={close} title="Upload Image">
      <Stack>
        <FileInput
          label="Image"
          placeholder="Choose an image"
          accept="image/*"
          value={picture}
          onChange={setPicture}
          clearable
        />
        {previewUrl && <Image src={previewUrl} alt="Preview of the new profile picture" mah={240} fit="contain" />}
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            Discard Changes
          </Button>
          <Button onClick={() => void save()} disabled={!picture} loading={updatePicture.isPending}>
            Save Image
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
