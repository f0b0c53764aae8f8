import { readFileSync } from 'node:fs';
import { readMarkerSet } from '../formats/scale-setup.ts';
import { addMarkerSet } from '../model/osim-markers.ts';
import { cloneXmlDocument, parseXmlDocument, type XmlDocument } from '../model/xml-tree.ts';
import { DEFAULT_MODEL_NAME, defaultModelDocument } from './default-model.ts';

/**
 * The models Kinetrace ships, by name. LaiUhlrich2022 (Rajagopal et al. 2016, Lai et al. 2017,
 * Uhlrich et al. 2022: 80 muscles, wrap objects, bone meshes) and LaiUhlrich2022_shoulder are
 * OpenCap's own files (packages/mocap/models/SOURCE.md), with Kinetrace's video-keypoint markers
 * added as OpenCap adds its keypoint marker sets (LaiUhlrich2022_markers_video.xml);
 * Kinetrace_default_fullbody is our own kinematic model without muscles (default-model.ts), kept
 * by name. Each carries a marker at every video keypoint, so keypoint scaling and IK run on it.
 */
export const OPENCAP_MODEL_NAMES = ['LaiUhlrich2022', 'LaiUhlrich2022_shoulder'] as const;
export const MODEL_NAMES = [...OPENCAP_MODEL_NAMES, DEFAULT_MODEL_NAME] as const;
export type ModelName = (typeof MODEL_NAMES)[number];

/** What runs when nothing else is asked for. */
export const DEFAULT_MODEL: ModelName = 'LaiUhlrich2022';

export const isModelName = (name: string): name is ModelName => (MODEL_NAMES as readonly string[]).includes(name);

const modelsDir = new URL('../../models/', import.meta.url);
const documents = new Map<string, XmlDocument>();

function opencapModelDocument(name: (typeof OPENCAP_MODEL_NAMES)[number]): XmlDocument {
  let document = documents.get(name);
  if (!document) {
    document = parseXmlDocument(readFileSync(new URL(`${name}.osim`, modelsDir), 'utf8'));
    addMarkerSet(document, readMarkerSet(readFileSync(new URL('LaiUhlrich2022_markers_video.xml', modelsDir), 'utf8')));
    documents.set(name, document);
  }
  return cloneXmlDocument(document);
}

/** A named model's generic .osim document with its keypoint markers, ready to be scaled (ours laid out at the subject's height). */
export function namedModelDocument(name: ModelName, options: { heightM?: number } = {}): XmlDocument {
  return name === DEFAULT_MODEL_NAME ? defaultModelDocument(options) : opencapModelDocument(name);
}
