import { useLocalStorage } from '@mantine/hooks';

/** The profile's 'Enable Voice Auditory Feedback' setting, kept locally (§2.19, §3). */
export const useAuditoryFeedback = () => useLocalStorage({ key: 'auditory_feedback', defaultValue: false })[0];

/** Says `text` aloud; a browser without speech (or refusing it) is only logged (§8). */
export function speak(text: string): void {
  try {
    window.speechSynthesis.speak(new SpeechSynthesisUtterance(text));
  } catch (error) {
    console.warn('Auditory feedback failed', error);
  }
}
