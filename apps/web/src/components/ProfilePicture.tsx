import { Image } from '@mantine/core';

/** Shown wherever a user has no picture of their own (§3). */
export const DEFAULT_PROFILE_PICTURE = '/default-profile.svg';

export function ProfilePicture({ src, alt, size }: { src: string | null | undefined; alt: string; size: number }) {
  return <Image src={src || DEFAULT_PROFILE_PICTURE} alt={alt} w={size} h={size} radius="50%" fit="cover" />;
}
