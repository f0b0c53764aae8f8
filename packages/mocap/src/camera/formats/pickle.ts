/**
 * A safe, minimal Python pickle reader (protocols 2-5) for data files such as OpenCap's camera
 * parameter pickles: dicts, lists, tuples, strings, numbers, bytes and numpy arrays.
 *
 * Nothing is executed: GLOBAL / STACK_GLOBAL resolve only an allow-list of numpy reconstructors
 * (ndarray, dtype, scalar), which are interpreted here; any other global (or an opcode outside
 * the data subset: INST, OBJ, NEWOBJ, PERSID, EXT...) makes the reader throw.
 *
 * Bounded on any input (issue 20: 52 bytes of DUP + TUPLE2 made 2^24 leaves, blocked the server
 * 8 s and took 700 MB): a shared reference becomes one shared value, never a copy; a file may hold
 * at most MAX_PICKLE_VALUES values, counted as if every shared reference were a copy, nested at
 * most MAX_PICKLE_DEPTH deep, and no value may contain itself.
 */
import { refuseUnsafeKey } from '../../formats/unsafe-keys.ts';

export interface NdArray {
  kind: 'ndarray';
  dtype: string; // numpy type string, e.g. '<f8'
  shape: number[];
  /** Values in C (row-major) order. */
  data: Float64Array | Int32Array | Uint8Array | BigInt64Array | number[];
}

export type PickleValue =
  null | boolean | number | bigint | string | Uint8Array | PickleValue[] | { [key: string]: PickleValue } | NdArray;

const MARK = Symbol('mark');

interface DtypeStub {
  kind: 'dtype';
  name: string;
  byteOrder: '<' | '>' | '|' | '=';
}

interface NdArrayStub {
  kind: 'ndarray-stub';
  array?: NdArray;
}

interface GlobalRef {
  kind: 'global';
  name: string;
}

type StackItem = PickleValue | typeof MARK | DtypeStub | NdArrayStub | GlobalRef | TupleValue;

/** Tuples are kept distinct from lists while reading (dtype and ndarray arguments are tuples). */
class TupleValue {
  constructor(readonly items: StackItem[]) {}
}

const ALLOWED_GLOBALS = new Set([
  'numpy.core.multiarray._reconstruct',
  'numpy._core.multiarray._reconstruct',
  'numpy.ndarray',
  'numpy.dtype',
  'numpy.core.multiarray.scalar',
  'numpy._core.multiarray.scalar',
]);

/** Far above a camera pickle (tens of values; a numpy array counts one) and its arrays' nesting. */
export const MAX_PICKLE_VALUES = 250_000;
export const MAX_PICKLE_DEPTH = 64;

/** Dicts have no prototype: no key of the file can reach Object.prototype, and none is inherited. */
const newDict = (): { [key: string]: PickleValue } => Object.create(null) as { [key: string]: PickleValue };

export class PickleError extends Error {
  override readonly name = 'PickleError';
}

/** Reads one pickled value. Throws PickleError on anything outside the safe data subset. */
export function readPickle(bytes: Uint8Array): PickleValue {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new TextDecoder('utf-8');
  let pos = 0;
  const stack: StackItem[] = [];
  const memo = new Map<number, StackItem>();
  let values = 0;
  const count = () => {
    if (++values > MAX_PICKLE_VALUES) throw new PickleError(`more than ${MAX_PICKLE_VALUES} values`);
  };
  const push = (item: StackItem) => {
    count();
    stack.push(item);
  };
  const remember = (key: number, item: StackItem) => {
    count();
    memo.set(key, item);
  };
  /** Tuples already converted: a tuple referenced twice becomes one shared array, not two copies. */
  const finishedTuples = new WeakMap<TupleValue, PickleValue[]>();
  /** Converts reader-internal items (tuples, array stubs) to plain values. */
  const finish = (item: StackItem, depth = 0): PickleValue => {
    if (depth > MAX_PICKLE_DEPTH) throw new PickleError(`values nested more than ${MAX_PICKLE_DEPTH} deep`);
    if (item === MARK) throw new PickleError('unexpected MARK');
    if (item instanceof TupleValue) {
      let array = finishedTuples.get(item);
      if (!array) {
        array = item.items.map((child) => finish(child, depth + 1));
        finishedTuples.set(item, array);
      }
      return array;
    }
    if (typeof item === 'object' && item !== null && 'kind' in item) {
      const k = (item as { kind: string }).kind;
      if (k === 'ndarray') return item as NdArray;
      if (k === 'ndarray-stub') {
        const array = (item as NdArrayStub).array;
        if (!array) throw new PickleError('numpy array without data');
        return array;
      }
      throw new PickleError(`unexpected ${k} value`);
    }
    return item as PickleValue;
  };
  const need = (n: number) => {
    if (pos + n > bytes.length) throw new PickleError('truncated pickle');
  };
  const u8 = () => {
    need(1);
    return bytes[pos++];
  };
  const u16 = () => {
    need(2);
    const v = view.getUint16(pos, true);
    pos += 2;
    return v;
  };
  const u32 = () => {
    need(4);
    const v = view.getUint32(pos, true);
    pos += 4;
    return v;
  };
  const i32 = () => {
    need(4);
    const v = view.getInt32(pos, true);
    pos += 4;
    return v;
  };
  const u64 = () => {
    need(8);
    const v = view.getBigUint64(pos, true);
    pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new PickleError('object too large');
    return Number(v);
  };
  const take = (n: number) => {
    need(n);
    const out = bytes.slice(pos, pos + n);
    pos += n;
    return out;
  };
  const line = () => {
    const end = bytes.indexOf(0x0a, pos);
    if (end < 0) throw new PickleError('truncated pickle (line)');
    const s = decoder.decode(bytes.subarray(pos, end));
    pos = end + 1;
    return s;
  };
  const popMark = (): StackItem[] => {
    for (let i = stack.length - 1; i >= 0; i--) {
      if (stack[i] === MARK) {
        const items = stack.splice(i + 1);
        stack.pop();
        return items;
      }
    }
    throw new PickleError('MARK not found');
  };
  const pop = (): StackItem => {
    if (stack.length === 0) throw new PickleError('stack underflow');
    return stack.pop()!;
  };
  const top = (): StackItem => {
    if (stack.length === 0) throw new PickleError('stack underflow');
    return stack[stack.length - 1];
  };
  const global = (module: string, name: string): GlobalRef => {
    const full = `${module}.${name}`;
    if (!ALLOWED_GLOBALS.has(full))
      throw new PickleError(`refusing to load global ${full} (only numpy arrays are allowed)`);
    return { kind: 'global', name: full };
  };
  const setItems = (target: StackItem, items: StackItem[]) => {
    if (!isDict(target)) throw new PickleError('SETITEM(S) on a non-dict');
    for (let i = 0; i + 1 < items.length; i += 2) {
      const key = items[i];
      const keyString =
        typeof key === 'string' ? key : typeof key === 'number' || typeof key === 'bigint' ? String(key) : null;
      if (keyString === null) throw new PickleError('only string or integer dict keys are supported');
      refuseUnsafeKey(keyString, 'Pickle dict');
      (target as Record<string, PickleValue>)[keyString] = finish(items[i + 1]);
    }
  };

  for (;;) {
    const op = u8();
    switch (op) {
      case 0x80: // PROTO
        u8();
        break;
      case 0x95: // FRAME
        u64();
        break;
      case 0x2e: {
        // STOP
        const value = finish(pop());
        checkShape(value);
        return value;
      }
      case 0x28: // MARK
        push(MARK);
        break;
      case 0x7d: // EMPTY_DICT
        push(newDict());
        break;
      case 0x5d: // EMPTY_LIST
        push([]);
        break;
      case 0x29: // EMPTY_TUPLE
        push(new TupleValue([]));
        break;
      case 0x64: {
        // DICT
        const d = newDict();
        setItems(d, popMark());
        push(d);
        break;
      }
      case 0x6c: // LIST
        push(popMark().map((item) => finish(item)));
        break;
      case 0x74: // TUPLE
        push(new TupleValue(popMark()));
        break;
      case 0x85: // TUPLE1
        push(new TupleValue([pop()]));
        break;
      case 0x86: {
        // TUPLE2
        const b = pop();
        const a = pop();
        push(new TupleValue([a, b]));
        break;
      }
      case 0x87: {
        // TUPLE3
        const c = pop();
        const b = pop();
        const a = pop();
        push(new TupleValue([a, b, c]));
        break;
      }
      case 0x61: {
        // APPEND
        const v = pop();
        const list = top();
        if (!Array.isArray(list)) throw new PickleError('APPEND on a non-list');
        list.push(finish(v));
        break;
      }
      case 0x65: {
        // APPENDS
        const items = popMark();
        const list = top();
        if (!Array.isArray(list)) throw new PickleError('APPENDS on a non-list');
        for (const v of items) list.push(finish(v));
        break;
      }
      case 0x73: {
        // SETITEM
        const v = pop();
        const k = pop();
        setItems(top(), [k, v]);
        break;
      }
      case 0x75: {
        // SETITEMS
        const items = popMark();
        setItems(top(), items);
        break;
      }
      case 0x4e: // NONE
        push(null);
        break;
      case 0x88: // NEWTRUE
        push(true);
        break;
      case 0x89: // NEWFALSE
        push(false);
        break;
      case 0x4a: // BININT
        push(i32());
        break;
      case 0x4b: // BININT1
        push(u8());
        break;
      case 0x4d: // BININT2
        push(u16());
        break;
      case 0x8a: {
        // LONG1
        const n = u8();
        const b = take(n);
        let v = 0n;
        for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]);
        if (n > 0 && b[n - 1] & 0x80) v -= 1n << BigInt(8 * n);
        push(v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v);
        break;
      }
      case 0x47: {
        // BINFLOAT (big-endian)
        need(8);
        push(view.getFloat64(pos, false));
        pos += 8;
        break;
      }
      case 0x58: // BINUNICODE
        push(decoder.decode(take(u32())));
        break;
      case 0x8c: // SHORT_BINUNICODE
        push(decoder.decode(take(u8())));
        break;
      case 0x8d: // BINUNICODE8
        push(decoder.decode(take(u64())));
        break;
      case 0x42: // BINBYTES
        push(take(u32()));
        break;
      case 0x43: // SHORT_BINBYTES
        push(take(u8()));
        break;
      case 0x8e: // BINBYTES8
        push(take(u64()));
        break;
      case 0x96: // BYTEARRAY8
        push(take(u64()));
        break;
      case 0x71: // BINPUT
        remember(u8(), top());
        break;
      case 0x72: // LONG_BINPUT
        remember(u32(), top());
        break;
      case 0x94: // MEMOIZE
        remember(memo.size, top());
        break;
      case 0x68: {
        // BINGET
        const k = u8();
        if (!memo.has(k)) throw new PickleError(`memo ${k} missing`);
        push(memo.get(k)!);
        break;
      }
      case 0x6a: {
        // LONG_BINGET
        const k = u32();
        if (!memo.has(k)) throw new PickleError(`memo ${k} missing`);
        push(memo.get(k)!);
        break;
      }
      case 0x63: {
        // GLOBAL
        const module = line();
        const name = line();
        push(global(module, name));
        break;
      }
      case 0x93: {
        // STACK_GLOBAL
        const name = pop();
        const module = pop();
        if (typeof module !== 'string' || typeof name !== 'string') throw new PickleError('STACK_GLOBAL needs strings');
        push(global(module, name));
        break;
      }
      case 0x52: {
        // REDUCE
        const args = pop();
        const callable = pop();
        push(reduce(callable, args));
        break;
      }
      case 0x62: {
        // BUILD
        const state = pop();
        build(top(), state);
        break;
      }
      case 0x30: // POP
        pop();
        break;
      case 0x31: // POP_MARK
        popMark();
        break;
      case 0x32: // DUP
        push(top());
        break;
      default:
        throw new PickleError(`unsupported pickle opcode 0x${op.toString(16)} at byte ${pos - 1}`);
    }
  }
}

function isDict(v: StackItem): v is { [key: string]: PickleValue } {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    !(v instanceof Uint8Array) &&
    !(v instanceof TupleValue) &&
    !('kind' in v)
  );
}

function reduce(callable: StackItem, args: StackItem): StackItem {
  if (!(typeof callable === 'object' && callable !== null && 'kind' in callable && callable.kind === 'global')) {
    throw new PickleError('REDUCE on something that is not an allowed global');
  }
  if (!(args instanceof TupleValue)) throw new PickleError('REDUCE arguments must be a tuple');
  const name = (callable as GlobalRef).name;
  if (name.endsWith('multiarray._reconstruct')) return { kind: 'ndarray-stub' } satisfies NdArrayStub;
  if (name === 'numpy.dtype') {
    const [type] = args.items;
    if (typeof type !== 'string') throw new PickleError('numpy.dtype needs a type string');
    return { kind: 'dtype', name: type, byteOrder: '=' } satisfies DtypeStub;
  }
  if (name.endsWith('multiarray.scalar')) {
    const [dtype, raw] = args.items;
    if (!isDtype(dtype) || !(raw instanceof Uint8Array)) throw new PickleError('numpy scalar needs a dtype and bytes');
    const values = decodeValues(dtype, raw, 1);
    const v = values[0];
    return typeof v === 'bigint' ? v : (v as number);
  }
  throw new PickleError(`cannot call ${name}`);
}

function isDtype(v: StackItem): v is DtypeStub {
  return typeof v === 'object' && v !== null && 'kind' in v && (v as DtypeStub).kind === 'dtype';
}

function build(target: StackItem, state: StackItem): void {
  if (isDtype(target)) {
    // (version, byteorder, subarray, names, fields, elsize, alignment, flags)
    if (state instanceof TupleValue && typeof state.items[1] === 'string') {
      target.byteOrder = state.items[1] as DtypeStub['byteOrder'];
    }
    return;
  }
  if (
    typeof target === 'object' &&
    target !== null &&
    'kind' in target &&
    (target as NdArrayStub).kind === 'ndarray-stub'
  ) {
    // (version, shape, dtype, is_fortran, raw bytes)
    if (!(state instanceof TupleValue) || state.items.length < 5) throw new PickleError('unexpected ndarray state');
    const [, shapeItem, dtype, fortran, raw] = state.items;
    if (!(shapeItem instanceof TupleValue)) throw new PickleError('ndarray shape must be a tuple');
    const shape = shapeItem.items.map((s) => Number(s));
    if (!isDtype(dtype)) throw new PickleError('ndarray needs a dtype');
    if (!(raw instanceof Uint8Array))
      throw new PickleError('only raw-bytes ndarrays are supported (not object arrays)');
    const count = shape.reduce((a, b) => a * b, 1);
    let values = decodeValues(dtype, raw, count);
    if (fortran === true && shape.length > 1) values = fortranToC(values, shape);
    const order = dtype.byteOrder === '=' || dtype.byteOrder === '|' ? '<' : dtype.byteOrder;
    (target as NdArrayStub).array = { kind: 'ndarray', dtype: `${order}${dtype.name}`, shape, data: values };
    return;
  }
  throw new PickleError('BUILD is only supported for numpy arrays and dtypes');
}

function decodeValues(dtype: DtypeStub, raw: Uint8Array, count: number): NdArray['data'] {
  const little = dtype.byteOrder !== '>';
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const sizes: Record<string, number> = { f8: 8, f4: 4, i8: 8, i4: 4, i2: 2, i1: 1, u8: 8, u4: 4, u2: 2, u1: 1, b1: 1 };
  const size = sizes[dtype.name];
  if (!size) throw new PickleError(`unsupported numpy dtype ${dtype.name}`);
  if (raw.length < size * count) throw new PickleError('ndarray data is shorter than its shape');
  const read = (i: number): number | bigint => {
    const o = i * size;
    switch (dtype.name) {
      case 'f8':
        return view.getFloat64(o, little);
      case 'f4':
        return view.getFloat32(o, little);
      case 'i8':
        return view.getBigInt64(o, little);
      case 'u8':
        return view.getBigUint64(o, little);
      case 'i4':
        return view.getInt32(o, little);
      case 'u4':
        return view.getUint32(o, little);
      case 'i2':
        return view.getInt16(o, little);
      case 'u2':
        return view.getUint16(o, little);
      case 'i1':
        return view.getInt8(o);
      default:
        return view.getUint8(o);
    }
  };
  if (dtype.name === 'f8' || dtype.name === 'f4')
    return Float64Array.from({ length: count }, (_, i) => read(i) as number);
  return Array.from({ length: count }, (_, i) => Number(read(i)));
}

function fortranToC(values: NdArray['data'], shape: number[]): NdArray['data'] {
  const n = values.length;
  const out = values instanceof Float64Array ? new Float64Array(n) : new Array<number>(n);
  const strides = shape.map((_, d) => shape.slice(0, d).reduce((a, b) => a * b, 1)); // Fortran strides
  for (let c = 0; c < n; c++) {
    let rem = c;
    let f = 0;
    for (let d = shape.length - 1; d >= 0; d--) {
      const idx = rem % shape[d];
      rem = Math.floor(rem / shape[d]);
      f += idx * strides[d];
    }
    out[c] = Number(values[f]);
  }
  return out as NdArray['data'];
}

/**
 * Refuses a value that contains itself, nests deeper than MAX_PICKLE_DEPTH, or would hold more than
 * MAX_PICKLE_VALUES values were its shared references copies (as a JSON export or any walk that
 * does not remember what it has seen would make them). Linear: each shared value is measured once.
 */
function checkShape(root: PickleValue): void {
  const measured = new Map<object, { size: number; height: number }>();
  const open = new Set<object>();
  const measure = (value: PickleValue, depth: number): { size: number; height: number } => {
    if (typeof value !== 'object' || value === null || value instanceof Uint8Array || isNdArray(value))
      return { size: 1, height: 0 };
    let shape = measured.get(value);
    if (!shape) {
      if (open.has(value)) throw new PickleError('a value contains itself');
      if (depth > MAX_PICKLE_DEPTH) throw new PickleError(`values nested more than ${MAX_PICKLE_DEPTH} deep`);
      open.add(value);
      shape = { size: 1, height: 0 };
      for (const child of Array.isArray(value) ? value : Object.values(value)) {
        const inner = measure(child, depth + 1);
        shape.size += inner.size;
        shape.height = Math.max(shape.height, inner.height + 1);
        if (shape.size > MAX_PICKLE_VALUES) throw new PickleError(`more than ${MAX_PICKLE_VALUES} values`);
      }
      open.delete(value);
      measured.set(value, shape);
    }
    if (depth + shape.height > MAX_PICKLE_DEPTH)
      throw new PickleError(`values nested more than ${MAX_PICKLE_DEPTH} deep`);
    return shape;
  };
  measure(root, 0);
}

export function isNdArray(v: PickleValue | undefined): v is NdArray {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    !(v instanceof Uint8Array) &&
    (v as NdArray).kind === 'ndarray'
  );
}
