import * as THREE from 'three';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { mergeGeometries, mergeVertices } from 'three/examples/jsm/utils/BufferGeometryUtils.js';

/**
 * The bones of OpenSim models, drawn from the meshes their bodies name (a visualizer JSON's
 * `attachedGeometries`, e.g. `r_femur.vtp`). The app ships binary STL copies of the meshes of the
 * models Kinetrace ships, LaiUhlrich2022 and LaiUhlrich2022_shoulder, under /geometry/ (public/geometry,
 * with their source and licence); a mesh outside that set is not drawn.
 */
const SIDES = ['r', 'l'] as const;
const LEG = ['pelvis', 'femur', 'tibia', 'fibula', 'patella', 'talus', 'foot', 'bofoot'];
const ARM = ['humerus', 'ulna', 'radius'];
const FINGERS = ['index', 'middle', 'ring', 'little'].flatMap((finger) =>
  ['proximal', 'medial', 'distal'].map((phalanx) => `${finger}_${phalanx}`),
);
const HAND = [
  'capitate',
  'hamate',
  'lunate',
  'pisiform',
  'scaphoid',
  'trapezium',
  'trapezoid',
  'triquetrum',
  ...[1, 2, 3, 4, 5].map((n) => `metacarpal${n}`),
  ...FINGERS,
  'thumb_proximal',
  'thumb_distal',
];

/** The meshes under /geometry/, by OpenSim file name without its extension. */
export const SHIPPED_MESHES: ReadonlySet<string> = new Set([
  'sacrum',
  'hat_spine',
  'hat_jaw',
  'hat_skull',
  'hat_ribs_scap',
  ...SIDES.flatMap((side) => [
    ...LEG.map((bone) => `${side}_${bone}`),
    ...ARM.map((bone) => `${bone}_${side}v`),
    ...HAND.map((bone) => `${bone}_${side}vs`),
  ]),
]);

/**
 * The shipped mesh a model's geometry file is, if any: the same name, or the same bone with its side
 * written the other way (`femur_r.vtp` in some OpenCap models is `r_femur` here).
 */
export function shippedMesh(file: string): string | undefined {
  const name = file.replace(/\.(vtp|stl|obj)$/i, '');
  const swapped = /^([rl])_(.+)$/.exec(name)
    ? name.replace(/^([rl])_(.+)$/, '$2_$1')
    : name.replace(/^(.+)_([rl])$/, '$2_$1');
  return [name, swapped].find((candidate) => SHIPPED_MESHES.has(candidate));
}

const loader = new STLLoader();
const meshes = new Map<string, Promise<THREE.BufferGeometry>>();

function loadMesh(name: string): Promise<THREE.BufferGeometry> {
  let mesh = meshes.get(name);
  if (!mesh) {
    mesh = fetch(`/geometry/${name}.stl`).then(async (response) => {
      const type = response.headers.get('content-type') ?? '';
      if (!response.ok || type.startsWith('text/'))
        throw new Error(`/geometry/${name}.stl: ${response.status} ${type}`);
      return loader.parse(await response.arrayBuffer());
    });
    meshes.set(name, mesh);
  }
  return mesh;
}

/**
 * One body's bones as one geometry in the body's frame: its shipped meshes merged, scaled by the
 * body's geometry scale factors (as OpenSim scales them), shared vertices joined so the surface shades
 * smooth. Undefined when the body names no shipped mesh.
 */
export async function bodyGeometry(
  files: readonly string[],
  scaleFactors: readonly [number, number, number],
): Promise<THREE.BufferGeometry | undefined> {
  const names = files.flatMap((file) => shippedMesh(file) ?? []);
  if (names.length === 0) return undefined;
  const parts = (await Promise.all(names.map(loadMesh))).map((part) => {
    const positions = new THREE.BufferGeometry();
    positions.setAttribute('position', part.getAttribute('position'));
    return positions;
  });
  const merged = mergeVertices(mergeGeometries(parts), 1e-5);
  merged.scale(...scaleFactors);
  merged.computeVertexNormals();
  return merged;
}
