import { DOUBLE_CLICK_WINDOW_MS } from '@kinetrace/contracts';
import { useRef } from 'react';

/**
 * Table rows open on a double click, i.e. two clicks on the same row within 300 ms (§2.8, §2.17, §9). Returns
 * the click handler to call with the row's key; a single click still does what `onSingle` says (selecting).
 */
export function useDoubleClick<Key>(onDouble: (key: Key) => void, onSingle?: (key: Key) => void) {
  const last = useRef<{ key: Key; at: number } | null>(null);
  return (key: Key) => {
    const now = performance.now();
    const previous = last.current;
    if (previous && previous.key === key && now - previous.at <= DOUBLE_CLICK_WINDOW_MS) {
      last.current = null;
      onDouble(key);
      return;
    }
    last.current = { key, at: now };
    onSingle?.(key);
  };
}
