import { expect } from 'vitest';
import { childNumbers, childText, descendants, parseXmlTree, type XmlNode } from '../../src/model/xml-tree.ts';

/**
 * Compares a scaled .osim of ours with the one OpenSim's ScaleTool wrote from the same inputs, by
 * element (components outside <defaults> matched by type and name): body masses, muscles' optimal
 * fibre and tendon slack lengths, path points and markers in their frames. Prints the worst
 * differences and asserts the issue's limits.
 */
export interface ScaledModelDifferences {
  bodies: number;
  muscles: number;
  points: number;
  markers: number;
  worstMassPercent: number;
  worstMusclePercent: number;
  worstPathPointMm: number;
  worstMarkerMm: number;
}

const components = (root: XmlNode, test: (node: XmlNode) => boolean): Map<string, XmlNode> =>
  new Map(
    descendants(root, (node) => node.name !== 'defaults' && test(node))
      .filter((node) => node.attributes.name !== 'default')
      .map((node) => [`${node.name}/${node.attributes.name}`, node]),
  );
const isMuscle = (node: XmlNode) => childText(node, 'optimal_fiber_length') !== undefined;
const isPathPoint = (node: XmlNode) => node.name === 'PathPoint' || node.name === 'ConditionalPathPoint';

export function compareScaledModels(oursText: string, openSimText: string): ScaledModelDifferences {
  const ours = parseXmlTree(oursText);
  const theirs = parseXmlTree(openSimText);
  const relative = (a: number, b: number) => Math.abs(a / b - 1) * 100;
  const worst = (pairs: Array<[XmlNode, XmlNode]>, measure: (a: XmlNode, b: XmlNode) => number) =>
    pairs.reduce((max, [a, b]) => Math.max(max, measure(a, b)), 0);
  const matched = (test: (node: XmlNode) => boolean): Array<[XmlNode, XmlNode]> => {
    const mine = components(ours, test);
    const pairs = [...components(theirs, test)].map(([key, node]): [XmlNode, XmlNode] => {
      const own = mine.get(key);
      expect(own, `our scaled model lacks ${key}`).toBeDefined();
      return [own!, node];
    });
    expect(pairs.length, 'components compared').toBe(mine.size);
    return pairs;
  };
  const number = (node: XmlNode, name: string) => Number(childText(node, name));
  const locationMm = (a: XmlNode, b: XmlNode) => {
    const [p, q] = [childNumbers(a, 'location')!, childNumbers(b, 'location')!];
    return 1000 * Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
  };
  const bodies = matched((node) => node.name === 'Body');
  const muscles = matched(isMuscle);
  const points = matched(isPathPoint);
  const markers = matched((node) => node.name === 'Marker');
  return {
    bodies: bodies.length,
    muscles: muscles.length,
    points: points.length,
    markers: markers.length,
    worstMassPercent: worst(bodies, (a, b) => relative(number(a, 'mass'), number(b, 'mass'))),
    worstMusclePercent: worst(muscles, (a, b) =>
      Math.max(
        relative(number(a, 'optimal_fiber_length'), number(b, 'optimal_fiber_length')),
        relative(number(a, 'tendon_slack_length'), number(b, 'tendon_slack_length')),
      ),
    ),
    worstPathPointMm: worst(points, locationMm),
    worstMarkerMm: worst(markers, locationMm),
  };
}

/** Elements of each type in a document (comments and text aside). */
export function elementCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const node of descendants(parseXmlTree(text), () => true))
    counts.set(node.name, (counts.get(node.name) ?? 0) + 1);
  return counts;
}

export function expectWithinOpenSimLimits(differences: ScaledModelDifferences, label: string): void {
  console.log(
    `${label}: ${differences.bodies} bodies, worst mass ${differences.worstMassPercent.toExponential(1)} %; ` +
      `${differences.muscles} muscles, worst optimal fibre / tendon slack length ${differences.worstMusclePercent.toExponential(1)} %; ` +
      `${differences.points} path points, worst ${differences.worstPathPointMm.toExponential(1)} mm; ` +
      `${differences.markers} markers, worst ${differences.worstMarkerMm.toExponential(1)} mm`,
  );
  expect(differences.worstMassPercent).toBeLessThan(0.1);
  expect(differences.worstMusclePercent).toBeLessThan(0.5);
  expect(differences.worstPathPointMm).toBeLessThan(0.5);
  expect(differences.worstMarkerMm).toBeLessThan(1);
}
