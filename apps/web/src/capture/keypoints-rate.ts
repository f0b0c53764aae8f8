/**
 * Below this rate a phone's keypoints clearly cannot help, and it sends none: the server uses a phone's
 * keypoints only when they are at least twice the trial's filter cutoff (Nyquist), 24 Hz for gait's default
 * 12 Hz (DESIGN §2.6); 10 Hz would serve only a cutoff of 5 Hz or less (our choice).
 */
export const MIN_HELPFUL_KEYPOINT_RATE_HZ = 10;
