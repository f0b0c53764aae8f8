import { readFile } from 'node:fs/promises';
import {
  activationFunction,
  type ActivationName,
  type KerasLayer,
  type KerasSequentialModel,
  UnsupportedKerasModelError,
} from './keras-sequential.ts';

interface KerasLayerJson {
  class_name: string;
  config: Record<string, unknown> & { name?: string; layer?: KerasLayerJson };
}

/** Weights of one layer as Keras saved them (`weights.h5` from `model.save_weights`), by short name. */
type LayerWeights = Map<string, { values: Float64Array; shape: number[] }>;

function lastDimension(shape: unknown): number | undefined {
  return Array.isArray(shape) && typeof shape[shape.length - 1] === 'number'
    ? (shape[shape.length - 1] as number)
    : undefined;
}

function activationName(value: unknown): ActivationName {
  const name = String(value ?? 'linear');
  activationFunction(name); // throws a clear error for an activation we cannot evaluate
  return name as ActivationName;
}

function requireWeight(
  weights: LayerWeights,
  layerName: string,
  shortName: string,
  expectedLength: number,
): Float64Array {
  const weight = weights.get(shortName);
  if (!weight) {
    throw new UnsupportedKerasModelError(
      `weights.h5 has no "${shortName}" for layer "${layerName}"; the weights file does not match model.json.`,
    );
  }
  if (weight.values.length !== expectedLength) {
    throw new UnsupportedKerasModelError(
      `Layer "${layerName}" ${shortName} has ${weight.values.length} values, model.json implies ${expectedLength}.`,
    );
  }
  return weight.values;
}

/**
 * Builds the network from Keras' model.json (a Sequential model) and the weights read from weights.h5.
 * Supported: InputLayer, LSTM, Dense and TimeDistributed(Dense), the layers of OpenCap's augmenters.
 */
export function kerasModelFromJson(modelJson: string, weightsByLayer: Map<string, LayerWeights>): KerasSequentialModel {
  const parsed = JSON.parse(modelJson) as {
    class_name?: string;
    config?: { layers?: KerasLayerJson[] } | KerasLayerJson[];
  };
  const layerList = Array.isArray(parsed.config) ? parsed.config : parsed.config?.layers;
  if (parsed.class_name !== 'Sequential' || !layerList) {
    throw new UnsupportedKerasModelError(
      `model.json must describe a Keras Sequential model (found "${parsed.class_name}").`,
    );
  }

  let width: number | undefined;
  const layers: KerasLayer[] = [];
  let inputSize: number | undefined;
  for (const layerJson of layerList) {
    const config = layerJson.config;
    const declaredInput = lastDimension(config.batch_input_shape ?? config.batch_shape);
    if (declaredInput !== undefined && width === undefined) width = declaredInput;
    if (inputSize === undefined && width !== undefined) inputSize = width;
    if (layerJson.class_name === 'InputLayer') continue;

    const name = String(config.name);
    const weights = weightsByLayer.get(name);
    if (!weights) throw new UnsupportedKerasModelError(`weights.h5 has no weights for layer "${name}" of model.json.`);
    if (width === undefined)
      throw new UnsupportedKerasModelError(`model.json does not declare the input size before layer "${name}".`);

    if (layerJson.class_name === 'LSTM') {
      const units = Number(config.units);
      const useBias = config.use_bias !== false;
      layers.push({
        kind: 'lstm',
        name,
        inputSize: width,
        units,
        kernel: requireWeight(weights, name, 'kernel', width * 4 * units),
        recurrentKernel: requireWeight(weights, name, 'recurrent_kernel', units * 4 * units),
        bias: useBias ? requireWeight(weights, name, 'bias', 4 * units) : new Float64Array(4 * units),
        activation: activationName(config.activation ?? 'tanh'),
        recurrentActivation: activationName(config.recurrent_activation ?? 'sigmoid'),
        returnSequences: config.return_sequences === true,
        goBackwards: config.go_backwards === true,
      });
      width = units;
    } else if (
      layerJson.class_name === 'Dense' ||
      (layerJson.class_name === 'TimeDistributed' && config.layer?.class_name === 'Dense')
    ) {
      const denseConfig = layerJson.class_name === 'Dense' ? config : config.layer!.config;
      const units = Number(denseConfig.units);
      const useBias = denseConfig.use_bias !== false;
      layers.push({
        kind: 'dense',
        name,
        inputSize: width,
        units,
        kernel: requireWeight(weights, name, 'kernel', width * units),
        bias: useBias ? requireWeight(weights, name, 'bias', units) : new Float64Array(units),
        activation: activationName(denseConfig.activation),
      });
      width = units;
    } else {
      const inner = config.layer ? `(${config.layer.class_name})` : '';
      throw new UnsupportedKerasModelError(
        `Keras layer ${layerJson.class_name}${inner} ("${name}") is not supported; augmenters may use LSTM, Dense and TimeDistributed(Dense).`,
      );
    }
  }
  if (inputSize === undefined || width === undefined || layers.length === 0) {
    throw new UnsupportedKerasModelError('model.json declares no input shape or no layers.');
  }
  return { inputSize, outputSize: width, layers };
}

/** Reads every layer's weights from a Keras weights.h5 (root attribute layer_names, per-group weight_names). */
export async function readKerasWeights(weightsPath: string): Promise<Map<string, LayerWeights>> {
  // Imported when first needed: loading h5wasm's module under tsx holds about 600 MB resident, which
  // an idle server (that may never run an augmenter) should not pay.
  const { default: h5wasm } = await import('h5wasm/node');
  await h5wasm.ready;
  const file = new h5wasm.File(weightsPath, 'r');
  try {
    const layerNamesAttr = file.attrs['layer_names']?.value;
    const layerNames = (Array.isArray(layerNamesAttr) ? layerNamesAttr : [layerNamesAttr]).map(String);
    const result = new Map<string, LayerWeights>();
    for (const layerName of layerNames) {
      const group = file.get(layerName);
      if (!(group instanceof h5wasm.Group)) continue;
      const weightNamesAttr = group.attrs['weight_names']?.value;
      const weightNames = (Array.isArray(weightNamesAttr) ? weightNamesAttr : [weightNamesAttr])
        .map(String)
        .filter(Boolean);
      const weights: LayerWeights = new Map();
      for (const weightName of weightNames) {
        const dataset = group.get(weightName);
        if (!(dataset instanceof h5wasm.Dataset)) continue;
        // "lstm_8/lstm_cell_8/recurrent_kernel:0" → "recurrent_kernel"
        const shortName = weightName.split('/').pop()!.replace(/:\d+$/, '');
        weights.set(shortName, {
          values: Float64Array.from(dataset.value as ArrayLike<number>),
          shape: dataset.shape ?? [],
        });
      }
      result.set(layerName, weights);
    }
    return result;
  } finally {
    file.close();
  }
}

/** Loads model.json + weights.h5 from one augmenter model directory. */
export async function loadKerasModel(modelJsonPath: string, weightsPath: string): Promise<KerasSequentialModel> {
  const [modelJson, weights] = await Promise.all([readFile(modelJsonPath, 'utf8'), readKerasWeights(weightsPath)]);
  return kerasModelFromJson(modelJson, weights);
}
