import { Center, Image, Loader } from '@mantine/core';
import { useEffect } from 'react';
import { useSessionQrCode } from '../../api/capture.ts';
import { reportError } from '../../app/report-error.ts';

/** The QR code a phone scans to join the session as a camera (its capture page). */
export function SessionQrCode({ sessionId, size = 260 }: { sessionId: string; size?: number }) {
  const qr = useSessionQrCode(sessionId);
  useEffect(() => {
    if (qr.error) reportError(qr.error, 'Could not load the QR code.');
  }, [qr.error]);
  return (
    <Center w={size} h={size}>
      {qr.data ? (
        <Image src={qr.data} alt="QR code to connect a phone" w={size} h={size} data-testid="session-qr" />
      ) : (
        <Loader />
      )}
    </Center>
  );
}
