/**
 * Segment masses as fractions of body mass, de Leva, P. (1996) "Adjustments to
 * Zatsiorsky-Seluyanov's segment inertia parameters", J Biomech 29(9), Table 4 (males):
 * head+neck 6.94 %, upper trunk 15.96 %, middle trunk 16.33 %, lower trunk 11.17 %,
 * upper arm 2.71 %, forearm 1.62 %, hand 0.61 %, thigh 14.16 %, shank 4.33 %, foot 1.37 %.
 * Mapped onto OpenSim's full-body bodies: the pelvis is the lower trunk, the torso the upper and
 * middle trunk (plus the head in models without a head body), the forearm is split evenly between
 * ulna and radius, and the foot 20/60/20 % between talus, calcaneus and toes.
 */
const HEAD_FRACTION = 0.0694;
const MASS_FRACTION_BY_BODY: Record<string, number> = {
  pelvis: 0.1117,
  torso: 0.1596 + 0.1633,
  head: HEAD_FRACTION,
  femur: 0.1416,
  tibia: 0.0433,
  talus: 0.0137 * 0.2,
  calcn: 0.0137 * 0.6,
  toes: 0.0137 * 0.2,
  humerus: 0.0271,
  ulna: 0.0162 / 2,
  radius: 0.0162 / 2,
  hand: 0.0061,
};

/** Mass of each body whose name (without its _r/_l suffix) is an OpenSim full-body segment; others are left out. */
export function segmentMassesKg(bodyNames: readonly string[], bodyMassKg: number): Map<string, number> {
  const masses = new Map<string, number>();
  const hasHead = bodyNames.includes('head');
  for (const name of bodyNames) {
    const fraction = MASS_FRACTION_BY_BODY[name.replace(/_[rl]$/, '')];
    if (fraction !== undefined)
      masses.set(name, (fraction + (name === 'torso' && !hasHead ? HEAD_FRACTION : 0)) * bodyMassKg);
  }
  return masses;
}
