/**
 * Segment proportions of an adult, as fractions of standing height H, from which Kinetrace's
 * default model is built. Scaling then fits every segment to the subject's own neutral trial;
 * these numbers only set the starting shape and the sizes of segments nothing measures.
 */

/**
 * Heights above the floor and lengths along the limbs, fractions of H.
 * Winter, D.A. (2009) Biomechanics and Motor Control of Human Movement, 4th ed., Fig. 4.1
 * (after Drillis & Contini 1966): shoulder 0.818, hip (greater trochanter) 0.530, knee 0.285,
 * ankle 0.039, eye 0.936, chin 0.870; upper arm 0.186, forearm 0.146, hand 0.108,
 * foot length 0.152, foot breadth 0.055, shoulder breadth 0.259.
 */
export const WINTER_2009 = {
  shoulderHeight: 0.818,
  hipHeight: 0.53,
  kneeHeight: 0.285,
  ankleHeight: 0.039,
  eyeHeight: 0.936,
  chinHeight: 0.87,
  upperArmLength: 0.186,
  forearmLength: 0.146,
  handLength: 0.108,
  footLength: 0.152,
  footBreadth: 0.055,
  shoulderBreadth: 0.259,
} as const;

/**
 * Offsets that Winter's figure does not give (joint centres inside the trunk), as fractions of H,
 * from the generic full-body model of Rajagopal et al. (2016) "Full-body musculoskeletal model for
 * muscle-driven simulation of human gait", IEEE TBME 63(10), whose unscaled subject is 1.70 m tall
 * (also the base of Lai et al. 2017 and Uhlrich et al. 2022's LaiUhlrich2022 model):
 * hip joint centres 0.056 m behind, 0.079 m below and 0.079 m lateral of the pelvis origin
 * (the mid-point of the ASIS/PSIS); lumbar joint 0.101 m behind and 0.082 m above it;
 * shoulder (acromial) joint centres 0.161 m lateral of the trunk midline.
 */
const RAJAGOPAL_HEIGHT_M = 1.7;
export const RAJAGOPAL_2016 = {
  hipCentreBehindPelvis: 0.056 / RAJAGOPAL_HEIGHT_M,
  hipCentreBelowPelvis: 0.079 / RAJAGOPAL_HEIGHT_M,
  hipCentreLateral: 0.079 / RAJAGOPAL_HEIGHT_M,
  lumbarBehindPelvis: 0.101 / RAJAGOPAL_HEIGHT_M,
  lumbarAbovePelvis: 0.082 / RAJAGOPAL_HEIGHT_M,
  shoulderLateral: 0.161 / RAJAGOPAL_HEIGHT_M,
} as const;

/**
 * Foot landmarks along the foot, fractions of foot length measured from the back of the heel.
 * The ankle (talocrural) axis lies about a fifth of the foot length in front of the heel and the
 * first metatarsophalangeal joint at about 73 % (Hawes & Sovak 1994, "Quantitative morphology of
 * the human foot in a North American population", Ergonomics 37(7), first-MTP at 72.6 % of foot
 * length); the fifth toe tip reaches about 82 % of it.
 */
export const FOOT_PROPORTIONS = {
  ankleFromHeel: 0.2,
  firstMtpFromHeel: 0.73,
  fifthToeTipFromHeel: 0.82,
} as const;

/**
 * Head landmarks relative to the mid-shoulder point, fractions of H (rough adult values from the
 * head dimensions of Winter 2009 Fig. 4.1: head breadth ≈ 0.09 H; interpupillary distance
 * ≈ 63 mm ≈ 0.036 H, Dodgson 2004 "Variation and extrema of human interpupillary distance").
 * Scaling's marker placement moves them onto the subject's measured keypoints.
 */
export const HEAD_PROPORTIONS = {
  earHalfBreadth: 0.045,
  eyeHalfDistance: 0.018,
  eyeForward: 0.05,
  noseForward: 0.065,
  earForward: -0.005,
  noseBelowEye: 0.025,
  earBelowEye: 0.01,
} as const;
