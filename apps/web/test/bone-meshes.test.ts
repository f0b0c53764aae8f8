import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { readOsim } from '@kinetrace/mocap/model/read-osim';
import { SHIPPED_MESHES, shippedMesh } from '../src/screens/Session/viewer/bone-meshes.ts';

const geometryDir = new URL('../public/geometry/', import.meta.url);
const modelsDir = new URL('../../../packages/mocap/models/', import.meta.url);

it('ships exactly the meshes it lists, each a binary STL whose size matches its triangle count', () => {
  const files = readdirSync(geometryDir).filter((file) => file.endsWith('.stl'));
  expect(files.map((file) => file.replace(/\.stl$/, '')).sort()).toEqual([...SHIPPED_MESHES].sort());
  for (const file of files) {
    const bytes = readFileSync(new URL(file, geometryDir));
    expect(bytes.length, file).toBe(84 + 50 * bytes.readUInt32LE(80));
  }
});

it("has a mesh for every visible geometry of the models Kinetrace ships, and reads OpenCap's other spellings", () => {
  for (const model of ['LaiUhlrich2022', 'LaiUhlrich2022_shoulder']) {
    const osim = readOsim(readFileSync(new URL(`${model}.osim`, modelsDir), 'utf8'));
    // The shoulder model's scapula phantoms carry an invisible block.
    const files = osim.bodies.flatMap((body) => body.geometryFiles).filter((file) => file !== 'block.vtp');
    expect(files.length, model).toBeGreaterThan(80);
    for (const file of files) expect(shippedMesh(file), `${model}: ${file}`).toBeDefined();
  }
  expect(shippedMesh('femur_r.vtp')).toBe('r_femur');
  expect(shippedMesh('r_femur.vtp')).toBe('r_femur');
  expect(shippedMesh('tibia_l.vtp')).toBe('l_tibia');
  expect(shippedMesh('humerus_rv.vtp')).toBe('humerus_rv');
  expect(shippedMesh('block.vtp')).toBeUndefined();
});
