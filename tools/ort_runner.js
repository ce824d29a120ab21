#!/usr/bin/env node
// Runs an ONNX model in ONNX Runtime (CPU) for `torch2onnx verify`, with tensors exchanged as ONNX
// TensorProto files (.pb, raw_data), as ONNX's backend tests keep them.
//
//   node ort_runner.js ORT_DIR MODEL.onnx IN_DIR OUT_DIR [OUTPUT_NAME...]
//
// ORT_DIR: a node_modules directory holding onnxruntime-node (or onnxruntime-node itself).
// IN_DIR/input_K.pb (K = 0, 1, ...): fed to the graph input named in the file (by position when
// unnamed). OUT_DIR/output_K.pb: the K-th requested output (all graph outputs when none are named),
// with its name. Exit status: 0 done, 2 the model could not be loaded or run (one line on stderr:
// "ORT_ERROR: ..."), 3 usage or a missing onnxruntime-node ("ORT_MISSING: ...").
// Environment: T2O_ORT_THREADS (intra-op threads; default ONNX Runtime's choice).
'use strict';

const fs = require('fs');
const path = require('path');

function die(code, tag, msg) {
  process.stderr.write(`${tag}: ${String(msg).split('\n')[0]}\n`);
  process.exit(code);
}

// ONNX element type -> [ort type name, TypedArray, bytes per element]
const TYPES = {
  1: ['float32', Float32Array, 4], 2: ['uint8', Uint8Array, 1], 3: ['int8', Int8Array, 1],
  4: ['uint16', Uint16Array, 2], 5: ['int16', Int16Array, 2], 6: ['int32', Int32Array, 4],
  7: ['int64', BigInt64Array, 8], 9: ['bool', Uint8Array, 1], 10: ['float16', Uint16Array, 2],
  11: ['float64', Float64Array, 8], 12: ['uint32', Uint32Array, 4], 13: ['uint64', BigUint64Array, 8],
};
const ELEM_OF = {};
for (const [k, v] of Object.entries(TYPES)) ELEM_OF[v[0]] = Number(k);

// --- a minimal protobuf reader/writer for TensorProto (dims=1, data_type=2, name=8, raw_data=9) ---
function readVarint(buf, pos) {
  let result = 0n, shift = 0n;
  for (;;) {
    if (pos.i >= buf.length) throw new Error('truncated varint');
    const b = buf[pos.i++];
    result |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return result;
    shift += 7n;
  }
}

function parseTensor(buf, file) {
  const pos = { i: 0 };
  const t = { dims: [], dataType: 0, name: '', raw: null };
  while (pos.i < buf.length) {
    const key = Number(readVarint(buf, pos));
    const field = key >> 3, wire = key & 7;
    if (wire === 0) {
      const v = readVarint(buf, pos);
      if (field === 1) t.dims.push(Number(BigInt.asIntN(64, v)));
      else if (field === 2) t.dataType = Number(v);
    } else if (wire === 2) {
      const len = Number(readVarint(buf, pos));
      const bytes = buf.subarray(pos.i, pos.i + len);
      pos.i += len;
      if (field === 1) {  // packed dims
        const p = { i: 0 };
        while (p.i < bytes.length) t.dims.push(Number(BigInt.asIntN(64, readVarint(bytes, p))));
      } else if (field === 8) t.name = bytes.toString('utf8');
      else if (field === 9) t.raw = bytes;
      else if (field >= 4 && field <= 7 || field === 10 || field === 11) {
        throw new Error(`${file}: typed data fields are not supported here (raw_data only)`);
      }
    } else if (wire === 5) pos.i += 4;
    else if (wire === 1) pos.i += 8;
    else throw new Error(`${file}: not a TensorProto (wire type ${wire})`);
  }
  return t;
}

function varint(n) {
  let v = BigInt.asUintN(64, BigInt(n));
  const out = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return Buffer.from(out);
}

function field(num, wire) { return varint((num << 3) | wire); }

function serializeTensor(name, elem, dims, data) {
  const parts = [];
  for (const d of dims) parts.push(field(1, 0), varint(d));
  parts.push(field(2, 0), varint(elem));
  const nameBuf = Buffer.from(name, 'utf8');
  parts.push(field(8, 2), varint(nameBuf.length), nameBuf);
  const raw = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  parts.push(field(9, 2), varint(raw.length), raw);
  return Buffer.concat(parts);
}

function readTensorFile(file) {
  const t = parseTensor(fs.readFileSync(file), file);
  const type = TYPES[t.dataType];
  if (!type) throw new Error(`${file}: element type ${t.dataType} is not supported`);
  const [ortType, Ctor, size] = type;
  const n = t.dims.reduce((a, b) => a * b, 1);
  const raw = t.raw || Buffer.alloc(0);
  if (raw.length !== n * size) throw new Error(`${file}: ${raw.length} bytes for ${n} elements of ${ortType}`);
  const ab = new ArrayBuffer(n * size);  // aligned copy
  new Uint8Array(ab).set(raw);
  return { name: t.name, type: ortType, dims: t.dims, data: new Ctor(ab) };
}

module.exports = { readTensorFile, serializeTensor, ELEM_OF };

function loadOrt(dir) {
  const candidates = [path.join(dir, 'onnxruntime-node'), dir];
  for (const c of candidates) {
    if (fs.existsSync(path.join(c, 'package.json')) && fs.existsSync(path.join(c, 'dist'))) {
      try { return require(c); } catch (e) { die(3, 'ORT_MISSING', `onnxruntime-node in ${c} cannot be loaded: ${e.message}`); }
    }
  }
  die(3, 'ORT_MISSING', `no onnxruntime-node in ${dir}`);
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length < 4) die(3, 'USAGE', 'node ort_runner.js ORT_DIR MODEL.onnx IN_DIR OUT_DIR [OUTPUT_NAME...]');
  const [ortDir, model, inDir, outDir, ...wanted] = args;
  const ort = loadOrt(ortDir);
  const options = { graphOptimizationLevel: 'all' };
  if (process.env.T2O_ORT_THREADS) options.intraOpNumThreads = Number(process.env.T2O_ORT_THREADS);
  let session;
  try {
    session = await ort.InferenceSession.create(model, options);
  } catch (e) {
    die(2, 'ORT_ERROR', `ONNX Runtime cannot load ${model}: ${e.message}`);
  }
  const feeds = {};
  for (let k = 0; ; ++k) {
    const file = path.join(inDir, `input_${k}.pb`);
    if (!fs.existsSync(file)) break;
    let t;
    try { t = readTensorFile(file); } catch (e) { die(3, 'USAGE', e.message); }
    const name = t.name || session.inputNames[k];
    if (!session.inputNames.includes(name)) die(2, 'ORT_ERROR', `${file}: the model has no input named '${name}'`);
    feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
  }
  const fetches = wanted.length ? wanted : session.outputNames;
  let results;
  try {
    results = await session.run(feeds, fetches);
  } catch (e) {
    die(2, 'ORT_ERROR', `ONNX Runtime failed to run ${model}: ${e.message}`);
  }
  fetches.forEach((name, k) => {
    const r = results[name];
    const elem = ELEM_OF[r.type];
    if (!elem) die(2, 'ORT_ERROR', `output ${name} has type ${r.type}, which verify cannot read`);
    let data = r.data;
    if (r.type === 'bool') data = Uint8Array.from(data, (v) => (v ? 1 : 0));
    fs.writeFileSync(path.join(outDir, `output_${k}.pb`), serializeTensor(name, elem, r.dims, data));
  });
}

if (require.main === module) main().catch((e) => die(2, 'ORT_ERROR', e.message));
