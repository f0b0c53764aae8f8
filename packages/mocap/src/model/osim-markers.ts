import type { MarkerDescription, Vec3 } from './osim-model.ts';
import { parentFramePath } from './geometry-paths.ts';
import { isOpenSim4, modelElement, modelFrames, ModelFormatError } from './read-osim.ts';
import {
  appendChild,
  childNamed,
  createElement,
  formatOpenSimNumbers,
  removeChild,
  setText,
  type XmlDocument,
  type XmlNode,
} from './xml-tree.ts';

/**
 * The markers of an .osim document, edited in place: a marker set added as OpenSim's
 * GenericModelMaker adds a scale setup's <marker_set_file> (Model::updateMarkerSet: a marker of the
 * same name is replaced, the others appended; OpenCap adds its video-keypoint markers to
 * LaiUhlrich2022 this way), and markers moved to new locations after marker placement.
 */
export interface MarkerSetEntry extends MarkerDescription {
  /** OpenSim's <fixed>: the marker placer leaves the marker where it is. */
  fixed: boolean;
}

function markerObjects(document: XmlDocument): XmlNode {
  const model = modelElement(document.root);
  let set = childNamed(model, 'MarkerSet');
  if (!set) {
    set = createElement('MarkerSet', { name: 'markerset' }, [createElement('objects', {}, [])]);
    appendChild(model, set);
  }
  let objects = childNamed(set, 'objects');
  if (!objects) {
    objects = createElement('objects', {}, []);
    appendChild(set, objects);
  }
  return objects;
}

export function addMarkerSet(document: XmlDocument, markers: readonly MarkerSetEntry[]): void {
  const modern = isOpenSim4(modelElement(document.root));
  const objects = markerObjects(document);
  for (const marker of markers) {
    const existing = objects.children.find((node) => node.name === 'Marker' && node.attributes.name === marker.name);
    if (existing) removeChild(objects, existing);
    const frame =
      marker.body === 'ground' ? (modern ? '/ground' : 'ground') : modern ? `/bodyset/${marker.body}` : marker.body;
    appendChild(
      objects,
      createElement('Marker', { name: marker.name }, [
        createElement(modern ? 'socket_parent_frame' : 'body', {}, frame),
        createElement('location', {}, formatOpenSimNumbers(marker.locationM)),
        createElement('fixed', {}, String(marker.fixed)),
      ]),
    );
  }
}

/** The names of the markers the document marks <fixed>true</fixed>. */
export function fixedMarkerNames(document: XmlDocument): Set<string> {
  return new Set(
    markerObjects(document)
      .children.filter(
        (node) => node.name === 'Marker' && childNamed(node, 'fixed')?.text.trim().toLowerCase() === 'true',
      )
      .map((node) => node.attributes.name ?? ''),
  );
}

/**
 * Moves markers to new locations given in their bodies' frames (as placeMarkers returns them),
 * re-expressed in each marker's own parent frame (MarkerPlacer::moveModelMarkersToPose).
 */
export function setMarkerLocations(document: XmlDocument, locationsInBodyM: ReadonlyMap<string, Vec3>): void {
  const model = modelElement(document.root);
  const frames = modelFrames(model);
  for (const node of markerObjects(document).children) {
    const location = node.name === 'Marker' ? locationsInBodyM.get(node.attributes.name ?? '') : undefined;
    if (!location) continue;
    const path = parentFramePath(node);
    if (!path) throw new ModelFormatError(`Marker "${node.attributes.name}" names no frame.`);
    const { rotation: r, translationM: t } = frames(path, `marker "${node.attributes.name}"`);
    const d = [location[0] - t[0], location[1] - t[1], location[2] - t[2]];
    const inFrame = [0, 1, 2].map((i) => r[i] * d[0] + r[3 + i] * d[1] + r[6 + i] * d[2]);
    setText(childNamed(node, 'location')!, formatOpenSimNumbers(inFrame));
  }
}
