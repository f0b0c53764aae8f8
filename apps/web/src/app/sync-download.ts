import { DOWNLOAD_FLAG_RESET_MS } from '@kinetrace/contracts';
import { useState } from 'react';
import { ApiError, NetworkError } from './api-client.ts';
import { authStore } from './auth-store.ts';
import { reportError } from './report-error.ts';

/** §3 local storage: whether the older, synchronous downloads are offered ('Download data (old)'). */
export const isSyncDownloadAllowed = () => localStorage.getItem('isSyncDownloadAllowed') === 'true';

/**
 * §4.4 simple download: fetches a zip with the token and hands it to the browser as `fileName`; the
 * `downloading` flag clears 5 s after the start.
 */
export function useSyncDownload() {
  const [downloading, setDownloading] = useState(false);
  const download = async (apiPath: string, fileName: string) => {
    setDownloading(true);
    setTimeout(() => setDownloading(false), DOWNLOAD_FLAG_RESET_MS);
    try {
      const { token } = authStore.get();
      const response = await fetch(`/api${apiPath}`, {
        headers: token ? { Authorization: `Token ${token}` } : {},
      }).catch(() => {
        throw new NetworkError();
      });
      if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null));
      const link = document.createElement('a');
      link.href = URL.createObjectURL(await response.blob());
      link.download = fileName;
      link.click();
      URL.revokeObjectURL(link.href);
    } catch (error) {
      reportError(error, 'Could not download the data.');
    }
  };
  return { downloading, download };
}
