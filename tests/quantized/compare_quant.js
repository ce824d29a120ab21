#!/usr/bin/env node
// Runs an exported quantized model in ONNX Runtime on a fixture's inputs and compares with PyTorch
// within a few quantization steps; checks the ONNX graph is in QDQ form.
//
//   node compare_quant.js MODEL.onnx FIXTURE_DIR
//   node compare_quant.js --batch JOBS.json REPORT.jsonl   (many in one node: ../ort/job.js)
//
// FIXTURE_DIR/meta.json (tests/quantized/make_quant_fixtures.py): inputs/outputs as tests/ort/compare.js,
// plus "atol" (max |a-b|, a few quantization steps of the output), "max_mismatch" (fraction of elements
// allowed beyond atol), "mean_atol" (bound on the mean |a-b|), "require" ({op_type: least count}) and
// "int8_weights" (8-bit integer initializers must outweigh float ones: weights stay quantized) and
// "uint8_table" ([N, D]: a quantized embedding table must be a uint8 initializer of that shape, with no
// float initializer of as many elements).
// Prints one line per output and a "nodes:" line with the node count per op type. Opset-10 models run
// without ONNX Runtime's graph optimizations (see below).
// Exit codes: 0 pass, 1 mismatch or graph check failed, 2 ONNX Runtime failed, 3 usage or fixture error.
'use strict';

const fs = require('fs');
const path = require('path');

// The comparison's output and early stop, per job (../ort/job.js).
let say = null, die = null;

let ortModule = null;
function ortLib() {
  if (!ortModule) {
    try {
      ortModule = require(path.join(__dirname, '..', 'ort', 'node_modules', 'onnxruntime-node'));
    } catch (e) {
      die(3, `onnxruntime-node not found under tests/ort/node_modules: ${e.message}`);
    }
  }
  return ortModule;
}

// ---- a minimal protobuf reader: node op types and initializer bytes per element type ----
function readVarint(buf, pos) {
  let v = 0, mul = 1, b;
  do {
    b = buf[pos.i++];
    v += (b & 0x7f) * mul;
    mul *= 128;
  } while (b & 0x80);
  return v;
}

// Calls visit(field, wireType, start, end) for each field of buf[start, end).
function fields(buf, start, end, visit) {
  const pos = { i: start };
  while (pos.i < end) {
    const key = readVarint(buf, pos);
    const field = Math.floor(key / 8), wire = key & 7;
    if (wire === 0) { const v = readVarint(buf, pos); visit(field, wire, v, v); }
    else if (wire === 1) { visit(field, wire, pos.i, pos.i + 8); pos.i += 8; }
    else if (wire === 5) { visit(field, wire, pos.i, pos.i + 4); pos.i += 4; }
    else if (wire === 2) { const n = readVarint(buf, pos); visit(field, wire, pos.i, pos.i + n); pos.i += n; }
    else throw new Error(`unsupported wire type ${wire}`);
  }
}

function graphSummary(file) {
  const buf = fs.readFileSync(file);
  const ops = {};
  const initBytes = {};  // ONNX data_type -> bytes
  const inits = [];      // {type, dims} of each initializer
  let opset = 0;
  fields(buf, 0, buf.length, (f, w, s, e) => {
    if (f === 8 && w === 2) {  // ModelProto.opset_import
      let domain = '', version = 0;
      fields(buf, s, e, (of, ow, os, oe) => {
        if (of === 1 && ow === 2) domain = buf.toString('utf8', os, oe);
        else if (of === 2 && ow === 0) version = os;
      });
      if (domain === '' || domain === 'ai.onnx') opset = version;
      return;
    }
    if (f !== 7 || w !== 2) return;  // ModelProto.graph
    fields(buf, s, e, (gf, gw, gs, ge) => {
      if (gf === 1 && gw === 2) {  // GraphProto.node
        fields(buf, gs, ge, (nf, nw, ns, ne) => {
          if (nf === 4 && nw === 2) {
            const op = buf.toString('utf8', ns, ne);
            ops[op] = (ops[op] || 0) + 1;
          }
        });
      } else if (gf === 5 && gw === 2) {  // GraphProto.initializer
        let type = 0, bytes = 0;
        const dims = [];
        fields(buf, gs, ge, (tf, tw, ts, te) => {
          if (tf === 2 && tw === 0) type = ts;
          else if (tf === 9 && tw === 2) bytes += te - ts;  // raw_data
          else if (tf === 1 && tw === 0) dims.push(ts);     // dims, unpacked
          else if (tf === 1 && tw === 2) {                  // dims, packed
            const pos = { i: ts };
            while (pos.i < te) dims.push(readVarint(buf, pos));
          }
        });
        initBytes[type] = (initBytes[type] || 0) + bytes;
        inits.push({ type, dims });
      }
    });
  });
  return { ops, initBytes, inits, opset };
}

const TYPED = { float32: Float32Array, int64: BigInt64Array, int32: Int32Array, uint8: Uint8Array, int8: Int8Array };

function readArray(dir, spec) {
  const Ctor = TYPED[spec.dtype];
  if (!Ctor) die(3, `unsupported dtype ${spec.dtype}`);
  const buf = fs.readFileSync(path.join(dir, spec.file));
  const ab = new ArrayBuffer(buf.length);
  new Uint8Array(ab).set(buf);
  return { dtype: spec.dtype, shape: spec.shape, data: new Ctor(ab) };
}

async function compareJob(model, dir, io) {
  say = io.say;
  die = io.die;
  const ort = ortLib();
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
  let ok = true;

  const { ops, initBytes, inits, opset } = graphSummary(model);
  const total = Object.values(ops).reduce((a, b) => a + b, 0);
  const list = Object.keys(ops).sort((a, b) => ops[b] - ops[a] || (a < b ? -1 : 1)).map((k) => `${k}=${ops[k]}`);
  say(`nodes: ${total} (${list.join(' ')})`);
  for (const [op, least] of Object.entries(meta.require || {})) {
    if ((ops[op] || 0) < least) {
      say(`graph: FAIL ${ops[op] || 0} ${op} node(s), expected at least ${least}`);
      ok = false;
    }
  }
  if (meta.int8_weights) {
    const int8 = (initBytes[2] || 0) + (initBytes[3] || 0);  // UINT8, INT8
    const fp = (initBytes[1] || 0) + (initBytes[11] || 0);   // FLOAT, DOUBLE
    say(`initializers: ${int8} bytes of 8-bit integers, ${fp} bytes of floats`);
    if (!(int8 > fp)) {
      say('graph: FAIL weights are not stored as 8-bit integers (float initializers dominate)');
      ok = false;
    }
  }

  if (meta.uint8_table) {
    // A quantized embedding table stays one uint8 initializer [N, D]; no float initializer as large.
    const [n, d] = meta.uint8_table;
    const table = inits.some((t) => t.type === 2 && t.dims.length === 2 && t.dims[0] === n && t.dims[1] === d);
    const floatTable = inits.some((t) => (t.type === 1 || t.type === 11) && t.dims.reduce((a, b) => a * b, 1) >= n * d);
    say(`table: ${table ? 'a' : 'no'} uint8 [${n}, ${d}] initializer${floatTable ? ', and a float one as large' : ''}`);
    if (!table || floatTable) ok = false;
  }

  const T2O_THREADS = parseInt(process.env.T2O_ORT_THREADS || '1', 10);
  // ONNX Runtime 1.30's QDQ fusion of Gemm/MatMul with a float bias quantizes the bias with a Round
  // node, an opset-11 op, even in an opset-10 model, which it then refuses to load: opset-10 models run
  // without graph optimizations (no QDQ fusion; the ops run as exported).
  const options = { intraOpNumThreads: T2O_THREADS, interOpNumThreads: 1 };
  if (opset > 0 && opset < 11) {
    options.graphOptimizationLevel = 'disabled';
    say(`opset ${opset}: ONNX Runtime graph optimizations disabled (its QDQ fusion needs opset 11)`);
  }
  let session;
  try {
    session = await ort.InferenceSession.create(model, options);
  } catch (e) {
    die(2, `ONNX Runtime cannot load ${model}: ${e.message}`);
  }
  const feeds = {};
  meta.inputs.forEach((spec, i) => {
    const a = readArray(dir, spec);
    feeds[session.inputNames[i]] = new ort.Tensor(a.dtype, a.data, a.shape);
  });
  let results;
  try {
    results = await session.run(feeds);
  } catch (e) {
    die(2, `ONNX Runtime failed to run ${model}: ${e.message}`);
  }
  if (session.outputNames.length !== meta.outputs.length) {
    say(`outputs: FAIL ${session.outputNames.length} outputs, expected ${meta.outputs.length}`);
    release(session);
    return 1;
  }
  meta.outputs.forEach((spec, k) => {
    const exp = readArray(dir, spec);
    const got = results[session.outputNames[k]];
    const label = `output ${k}`;
    if (got.type !== exp.dtype) { say(`${label}: FAIL dtype ${got.type}, expected ${exp.dtype}`); ok = false; return; }
    if (JSON.stringify(Array.from(got.dims)) !== JSON.stringify(exp.shape)) {
      say(`${label}: FAIL shape [${got.dims}], expected [${exp.shape}]`);
      ok = false;
      return;
    }
    let beyond = 0, worst = 0, sum = 0;
    const n = exp.data.length;
    for (let i = 0; i < n; ++i) {
      const d = Math.abs(Number(got.data[i]) - Number(exp.data[i]));
      if (!(d <= meta.atol)) ++beyond;
      if (!(d <= worst)) worst = d;
      sum += d;
    }
    const mean = n ? sum / n : 0;
    const step = meta.step || meta.atol;
    const pass = beyond <= Math.floor(meta.max_mismatch * n) && mean <= meta.mean_atol;
    say(`${label}: ${pass ? 'ok' : 'FAIL'} max |a-b| = ${worst.toPrecision(3)} (${(worst / step).toFixed(2)} steps), ` +
                `mean ${mean.toPrecision(3)} (${(mean / step).toFixed(3)} steps), ${beyond}/${n} beyond ` +
                `${meta.steps || ''} steps (allowed ${Math.floor(meta.max_mismatch * n)}), step ${step.toPrecision(3)}`);
    if (!pass) ok = false;
  });
  release(session);
  return ok ? 0 : 1;
}

function release(session) {
  if (session && typeof session.release === 'function') session.release().catch(() => {});
}

require('../ort/job.js').main('compare_quant.js', compareJob);
