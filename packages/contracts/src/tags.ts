/**
 * The tag lists served at /tags/subjectTags.json and /tags/trialTags.json, as value/label pairs.
 * Subject tags name clinical conditions, grouped broadly as in clinical gait laboratories
 * (neurological, musculoskeletal, other); trial tags name movement types of common protocols.
 */
export interface TagOption {
  value: string;
  label: string;
}

export const SUBJECT_TAGS: readonly TagOption[] = [
  { value: 'unimpaired', label: 'Unimpaired' },
  { value: 'stroke', label: 'Stroke' },
  { value: 'cerebral-palsy', label: 'Cerebral palsy' },
  { value: 'parkinsons', label: "Parkinson's disease" },
  { value: 'multiple-sclerosis', label: 'Multiple sclerosis' },
  { value: 'spinal-cord-injury', label: 'Spinal cord injury' },
  { value: 'traumatic-brain-injury', label: 'Traumatic brain injury' },
  { value: 'peripheral-neuropathy', label: 'Peripheral neuropathy' },
  { value: 'muscular-dystrophy', label: 'Muscular dystrophy' },
  { value: 'ataxia', label: 'Ataxia' },
  { value: 'knee-osteoarthritis', label: 'Knee osteoarthritis' },
  { value: 'hip-osteoarthritis', label: 'Hip osteoarthritis' },
  { value: 'rheumatoid-arthritis', label: 'Rheumatoid arthritis' },
  { value: 'acl-injury', label: 'ACL injury or reconstruction' },
  { value: 'knee-replacement', label: 'Knee replacement' },
  { value: 'hip-replacement', label: 'Hip replacement' },
  { value: 'ankle-sprain', label: 'Ankle sprain or instability' },
  { value: 'low-back-pain', label: 'Low back pain' },
  { value: 'scoliosis', label: 'Scoliosis' },
  { value: 'amputation-lower-limb', label: 'Lower-limb amputation' },
  { value: 'amputation-upper-limb', label: 'Upper-limb amputation' },
  { value: 'fracture', label: 'Fracture (recent)' },
  { value: 'sarcopenia-frailty', label: 'Sarcopenia or frailty' },
  { value: 'fall-risk', label: 'History of falls' },
  { value: 'obesity', label: 'Obesity' },
  { value: 'diabetes', label: 'Diabetes' },
  { value: 'pregnancy', label: 'Pregnancy' },
  { value: 'athlete', label: 'Athlete' },
  { value: 'other', label: 'Other condition' },
];

export const TRIAL_TAGS: readonly TagOption[] = [
  { value: 'walking', label: 'Walking' },
  { value: 'walking-fast', label: 'Walking (fast)' },
  { value: 'walking-slow', label: 'Walking (slow)' },
  { value: 'running', label: 'Running' },
  { value: 'squat', label: 'Squat' },
  { value: 'squat-single-leg', label: 'Single-leg squat' },
  { value: 'sit-to-stand', label: 'Sit-to-stand' },
  { value: 'jump-vertical', label: 'Vertical jump' },
  { value: 'jump-drop', label: 'Drop jump' },
  { value: 'jump-broad', label: 'Broad jump' },
  { value: 'hop', label: 'Hop' },
  { value: 'lunge', label: 'Lunge' },
  { value: 'stairs-up', label: 'Stair ascent' },
  { value: 'stairs-down', label: 'Stair descent' },
  { value: 'balance', label: 'Balance' },
  { value: 'timed-up-and-go', label: 'Timed up and go' },
  { value: 'cutting', label: 'Cutting / change of direction' },
  { value: 'reaching', label: 'Reaching' },
  { value: 'arm-raise', label: 'Arm raise' },
  { value: 'throwing', label: 'Throwing' },
  { value: 'static', label: 'Static' },
  { value: 'other', label: 'Other' },
];
