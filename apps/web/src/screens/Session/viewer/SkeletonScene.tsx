import { Grid, OrbitControls } from '@react-three/drei';
import { Canvas, useFrame, useThree } from '@react-three/fiber';
import { useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import * as THREE from 'three';
import { bodyGeometry } from './bone-meshes.ts';
import { deriveSkeleton, frameAtTime, skeletonGeometry, type Bone, type TrialMotion } from './body-motion.ts';
import type { CameraPose } from './camera-poses.ts';
import type { MarkerTrajectories as Keypoints } from '@kinetrace/mocap/formats/trc';
import type { PlaybackClock } from './playback-clock.ts';

const colours = {
  background: '#1b1e23',
  bone: '#e9e4d8',
  joint: '#f08c00',
  keypoint: '#40c057',
  camera: '#74c0fc',
  gridCell: '#59616d',
  gridSection: '#7b8696',
  floor: '#30353d',
} as const;
/** Drawn sizes, metres: joint spheres, and bone radius as a fraction of its length within bounds. */
const JOINT_RADIUS_M = 0.03;
/** Joint centres over the bones: drawn through them (no depth test), smaller so the bones show. */
const JOINT_ON_BONES_RADIUS_M = 0.015;
const BONE_RADIUS = { perLength: 0.1, minM: 0.012, maxM: 0.035 } as const;
const KEYPOINT_RADIUS_M = 0.015;
/** Depth at which a camera's frustum is drawn. */
const FRUSTUM_DEPTH_M = 0.4;

/** The head rises this far above the highest joint centre (the shoulders' level is below it). */
const HEAD_ROOM_M = 0.35;
const FIELD_OF_VIEW_DEG = 45;
const FRAMING_MARGIN = 1.4;
const VIEW_DIRECTION = new THREE.Vector3(0.35, 0.12, 1).normalize();

const up = new THREE.Vector3(0, 1, 0);

function BoneMesh({ bone }: { bone: Bone }) {
  const { position, quaternion, lengthM, radiusM } = useMemo(() => {
    const from = new THREE.Vector3(...bone.fromM);
    const direction = new THREE.Vector3(...bone.toM).sub(from);
    const lengthM = direction.length();
    return {
      position: from.clone().addScaledVector(direction, 0.5),
      quaternion: new THREE.Quaternion().setFromUnitVectors(up, direction.clone().normalize()),
      lengthM,
      radiusM: Math.min(BONE_RADIUS.maxM, Math.max(BONE_RADIUS.minM, BONE_RADIUS.perLength * lengthM)),
    };
  }, [bone]);
  return (
    <mesh position={position} quaternion={quaternion} castShadow>
      <capsuleGeometry args={[radiusM, lengthM, 6, 16]} />
      <meshStandardMaterial color={colours.bone} roughness={0.6} />
    </mesh>
  );
}

/**
 * Each body's bones from the model's meshes (bone-meshes.ts), once they have loaded; undefined while
 * they load, and for a model whose bodies name no mesh the app has (the skeleton is drawn with capsules then).
 */
function useBoneGeometries(motion: TrialMotion): (THREE.BufferGeometry | undefined)[] | undefined {
  const [geometries, setGeometries] = useState<(THREE.BufferGeometry | undefined)[]>();
  useEffect(() => {
    let loaded: (THREE.BufferGeometry | undefined)[] = [];
    let current = true;
    setGeometries(undefined);
    Promise.all(motion.bodies.map((body) => bodyGeometry(body.geometryFiles, body.geometryScale)))
      .then((geometries) => {
        loaded = geometries;
        if (current && geometries.some(Boolean)) setGeometries(geometries);
      })
      // A mesh that cannot be fetched leaves the capsules.
      .catch(() => undefined);
    return () => {
      current = false;
      for (const geometry of loaded) geometry?.dispose();
    };
  }, [motion]);
  return geometries;
}

/**
 * Every body of the model, moved to the frame of the clock's time before each render: its bones
 * where the model has meshes, with its joint centre drawn over them; else capsules between joints.
 */
function Bodies({
  motion,
  clock,
  host,
}: {
  motion: TrialMotion;
  clock: PlaybackClock;
  host: RefObject<HTMLDivElement | null>;
}) {
  const { bones, head } = useMemo(() => skeletonGeometry(motion, deriveSkeleton(motion)), [motion]);
  const boneGeometries = useBoneGeometries(motion);
  const groups = useRef<(THREE.Group | null)[]>([]);
  useFrame(() => {
    const frame = frameAtTime(motion, clock.snapshot.timeS);
    motion.bodies.forEach((body, i) => {
      const group = groups.current[i];
      if (!group) return;
      group.position.fromArray(body.translationsM, frame * 3);
      group.rotation.set(
        body.rotationsRad[frame * 3],
        body.rotationsRad[frame * 3 + 1],
        body.rotationsRad[frame * 3 + 2],
        'XYZ',
      );
    });
    if (host.current) host.current.dataset.frame = String(frame);
  });
  if (boneGeometries) {
    return motion.bodies.map((body, i) => (
      <group key={body.name} name={body.name} ref={(group) => void (groups.current[i] = group)}>
        {boneGeometries[i] && (
          <mesh geometry={boneGeometries[i]} castShadow>
            <meshStandardMaterial color={colours.bone} roughness={0.6} />
          </mesh>
        )}
        <mesh renderOrder={1}>
          <sphereGeometry args={[JOINT_ON_BONES_RADIUS_M, 16, 12]} />
          <meshStandardMaterial color={colours.joint} roughness={0.5} depthTest={false} />
        </mesh>
      </group>
    ));
  }
  return motion.bodies.map((body, i) => (
    <group key={body.name} name={body.name} ref={(group) => void (groups.current[i] = group)}>
      <mesh castShadow>
        <sphereGeometry args={[JOINT_RADIUS_M, 20, 14]} />
        <meshStandardMaterial color={colours.joint} roughness={0.5} />
      </mesh>
      {bones.flatMap((bone, k) => (bone.body === i ? [<BoneMesh key={k} bone={bone} />] : []))}
      {head?.body === i && (
        <mesh position={head.centreM} castShadow>
          <sphereGeometry args={[head.radiusM, 32, 24]} />
          <meshStandardMaterial color={colours.bone} roughness={0.6} />
        </mesh>
      )}
    </group>
  ));
}

function KeypointCloud({ keypoints, clock }: { keypoints: Keypoints; clock: PlaybackClock }) {
  const mesh = useRef<THREE.InstancedMesh>(null);
  const matrix = useMemo(() => new THREE.Matrix4(), []);
  useFrame(() => {
    if (!mesh.current) return;
    const frame = frameAtTime(keypoints, clock.snapshot.timeS);
    const count = keypoints.markerNames.length;
    for (let k = 0; k < count; k++) {
      const at = (frame * count + k) * 3;
      const [x, y, z] = [keypoints.positionsM[at], keypoints.positionsM[at + 1], keypoints.positionsM[at + 2]];
      // A keypoint missing in this frame shrinks to nothing.
      matrix
        .makeScale(...((Number.isFinite(x) ? [1, 1, 1] : [0, 0, 0]) as [number, number, number]))
        .setPosition(x || 0, y || 0, z || 0);
      mesh.current.setMatrixAt(k, matrix);
    }
    mesh.current.instanceMatrix.needsUpdate = true;
  });
  return (
    <instancedMesh ref={mesh} args={[undefined, undefined, keypoints.markerNames.length]}>
      <sphereGeometry args={[KEYPOINT_RADIUS_M, 10, 8]} />
      <meshBasicMaterial color={colours.keypoint} />
    </instancedMesh>
  );
}

/** Each calibrated camera as a pyramid from its optical centre to its image corners at FRUSTUM_DEPTH_M. */
function CameraFrustums({ cameras }: { cameras: CameraPose[] }) {
  const geometry = useMemo(() => {
    const points: number[] = [];
    for (const camera of cameras) {
      const corners = camera.imageCornersAt(FRUSTUM_DEPTH_M);
      corners.forEach((corner, i) => points.push(...camera.centreM, ...corner, ...corner, ...corners[(i + 1) % 4]));
    }
    return new THREE.BufferGeometry().setAttribute('position', new THREE.Float32BufferAttribute(points, 3));
  }, [cameras]);
  return (
    <lineSegments geometry={geometry}>
      <lineBasicMaterial color={colours.camera} />
    </lineSegments>
  );
}

/** Writes the camera's projection (clip from world, column-major) on the host, for whoever lays marks over the picture. */
function PublishProjection({ host }: { host: RefObject<HTMLDivElement | null> }) {
  const clipFromWorld = useMemo(() => new THREE.Matrix4(), []);
  useFrame(({ camera }) => {
    if (!host.current) return;
    camera.updateMatrixWorld();
    clipFromWorld.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    const text = clipFromWorld.elements.map((value) => value.toPrecision(7)).join(' ');
    if (host.current.dataset.clipFromWorld !== text) host.current.dataset.clipFromWorld = text;
  });
  return null;
}

/** Draws a frame whenever the clock changes (the canvas draws on demand, so a paused trial costs nothing). */
function RedrawOnClock({ clock }: { clock: PlaybackClock }) {
  const invalidate = useThree((state) => state.invalidate);
  useEffect(() => clock.subscribe(() => invalidate()), [clock, invalidate]);
  return null;
}

export interface SceneProps {
  motion: TrialMotion;
  clock: PlaybackClock;
  cameras: CameraPose[];
  keypoints: Keypoints | undefined;
}

/**
 * The 3D view: the model's bodies on a grid floor under a shadow-casting light, the calibrated
 * cameras, optionally the 3D keypoints; orbit (left drag), pan (right drag) and zoom (wheel).
 * The host element carries `data-frame` (the motion frame drawn) and `data-clip-from-world`.
 */
export function SkeletonScene({ motion, clock, cameras, keypoints }: SceneProps) {
  const host = useRef<HTMLDivElement>(null);
  const { target, floorY, cameraPosition } = useMemo(() => {
    // The box every joint centre passes through during the trial.
    const low = [Infinity, Infinity, Infinity];
    const high = [-Infinity, -Infinity, -Infinity];
    for (const body of motion.bodies) {
      body.translationsM.forEach((value, i) => {
        low[i % 3] = Math.min(low[i % 3], value);
        high[i % 3] = Math.max(high[i % 3], value);
      });
    }
    // The lowest joint centre (a toe or heel) sits about a joint radius above the ground.
    const floorY = low[1] - JOINT_RADIUS_M;
    const target = new THREE.Vector3(
      (low[0] + high[0]) / 2,
      (floorY + high[1]) / 2 + HEAD_ROOM_M / 2,
      (low[2] + high[2]) / 2,
    );
    // Far enough for the whole box to fit the field of view with a margin, from the front-right and a little above.
    const halfExtent = Math.max(high[0] - low[0], high[1] - floorY + HEAD_ROOM_M, high[2] - low[2]) / 2;
    const distance = (FRAMING_MARGIN * halfExtent) / Math.tan(THREE.MathUtils.degToRad(FIELD_OF_VIEW_DEG / 2));
    const cameraPosition = target.clone().addScaledVector(VIEW_DIRECTION, distance).toArray();
    return { target, floorY, cameraPosition };
  }, [motion]);
  const lightTarget = useMemo(() => new THREE.Object3D(), []);
  lightTarget.position.copy(target);

  return (
    <div ref={host} data-testid="viewer-scene" style={{ width: '100%', height: '100%' }}>
      <Canvas
        frameloop="demand"
        shadows="soft"
        camera={{ position: cameraPosition, fov: FIELD_OF_VIEW_DEG, near: 0.05, far: 200 }}
        gl={{ preserveDrawingBuffer: true }}
      >
        <color attach="background" args={[colours.background]} />
        <hemisphereLight args={['#ffffff', '#445566', 0.8]} />
        <primitive object={lightTarget} />
        <directionalLight
          target={lightTarget}
          position={[target.x + 3, target.y + 5, target.z + 2]}
          intensity={2}
          castShadow
          shadow-mapSize={[1024, 1024]}
          shadow-radius={6}
          shadow-camera-left={-4}
          shadow-camera-right={4}
          shadow-camera-top={4}
          shadow-camera-bottom={-4}
        />
        <mesh rotation={[-Math.PI / 2, 0, 0]} position={[target.x, floorY, target.z]} receiveShadow>
          <planeGeometry args={[40, 40]} />
          <meshStandardMaterial color={colours.floor} />
        </mesh>
        <Grid
          position={[target.x, floorY + 0.001, target.z]}
          args={[40, 40]}
          cellSize={0.25}
          sectionSize={1}
          cellColor={colours.gridCell}
          sectionColor={colours.gridSection}
          fadeDistance={25}
          infiniteGrid
        />
        <Bodies motion={motion} clock={clock} host={host} />
        {keypoints && <KeypointCloud keypoints={keypoints} clock={clock} />}
        {cameras.length > 0 && <CameraFrustums cameras={cameras} />}
        <OrbitControls makeDefault target={target} enableDamping={false} />
        <PublishProjection host={host} />
        <RedrawOnClock clock={clock} />
      </Canvas>
    </div>
  );
}
