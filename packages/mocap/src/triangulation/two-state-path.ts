/**
 * The cheapest sequence of two states (0 or 1) over the frames that have evidence (Viterbi): the
 * sum of each frame's cost of being in a state plus the cost of going from the previous such
 * frame's state to this one. The side stages use it to decide, per body part, which hypothesis
 * holds in each frame when one frame alone cannot tell, letting the frames around it speak.
 */
export interface TwoStateEvidence {
  /** Cost of each state in `frame`, or undefined for a frame without evidence (skipped; its state is 0). */
  stateCost(frame: number): readonly [number, number] | undefined;
  /** Cost of going from state `from` in frame `previous` (the last frame with evidence) to `to` in `frame`. */
  transitionCost(previous: number, frame: number, from: 0 | 1, to: 0 | 1): number;
}

export function cheapestTwoStatePath(frameCount: number, evidence: TwoStateEvidence): Uint8Array {
  const cost = [0, 0];
  // back[frame * 2 + state]: the previous evidence frame's state on the cheapest path into `state`.
  const back = new Uint8Array(frameCount * 2);
  const previousOf = new Int32Array(frameCount).fill(-1);
  let previous = -1;
  for (let frame = 0; frame < frameCount; frame++) {
    const here = evidence.stateCost(frame);
    if (!here) continue;
    if (previous < 0) {
      [cost[0], cost[1]] = here;
    } else {
      const next = [0, 0];
      for (const to of [0, 1] as const) {
        const fromZero = cost[0] + evidence.transitionCost(previous, frame, 0, to);
        const fromOne = cost[1] + evidence.transitionCost(previous, frame, 1, to);
        back[frame * 2 + to] = fromOne < fromZero ? 1 : 0;
        next[to] = Math.min(fromZero, fromOne) + here[to];
      }
      [cost[0], cost[1]] = next;
    }
    previousOf[frame] = previous;
    previous = frame;
  }
  const path = new Uint8Array(frameCount);
  let state = cost[1] < cost[0] ? 1 : 0;
  for (let frame = previous; frame >= 0; frame = previousOf[frame]) {
    path[frame] = state;
    state = back[frame * 2 + state];
  }
  return path;
}
