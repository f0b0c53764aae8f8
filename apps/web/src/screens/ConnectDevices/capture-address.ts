/**
 * Why a phone scanning the QR code could not record from its capture address, or null when it can. Browsers
 * give a page the camera only in a secure context: HTTPS, or a loopback address — and a phone's loopback is
 * the phone itself, not this computer.
 */
export function captureAddressProblem(captureUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(captureUrl);
  } catch {
    return null;
  }
  if (namesOnlyThisComputer(url.hostname)) {
    return (
      `The QR code sends phones to ${url.origin}, which on a phone is the phone itself, not this computer. ` +
      "Start the server with `npm start -- --https` (the QR code then carries the computer's address on the local network), " +
      'or set PUBLIC_URL to an address the phones can reach.'
    );
  }
  if (url.protocol === 'http:') {
    return (
      `The QR code sends phones to ${url.origin} over plain HTTP, where browsers do not give a page the camera. ` +
      'Start the server with `npm start -- --https` (a self-signed certificate for the local network), ' +
      'or set PUBLIC_URL to an https:// address that reaches this server.'
    );
  }
  return null;
}

/** Loopback names, and 0.0.0.0 (every interface of this computer, no address for another machine). */
function namesOnlyThisComputer(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    host === 'localhost' || host.endsWith('.localhost') || host === '::1' || host === '0.0.0.0' || /^127\./.test(host)
  );
}
