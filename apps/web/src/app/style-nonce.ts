import { setNonce } from 'get-nonce';

/**
 * The nonce the server's content security policy allows this page's style elements with, from the page's
 * `csp-nonce` meta tag (absent under Vite's dev server, which sends no policy).
 */
const styleNonce = document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]')?.nonce || undefined;

/** For MantineProvider, whose theme variables and responsive props are style elements. */
export const getStyleNonce = styleNonce ? () => styleNonce : undefined;

// Mantine's modals lock scrolling with a style element that takes get-nonce's nonce.
if (styleNonce) setNonce(styleNonce);
