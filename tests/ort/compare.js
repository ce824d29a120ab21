#!/usr/bin/env node
// Runs an ONNX model in ONNX Runtime (CPU) on a fixture's inputs and compares its outputs with the
// fixture's expected outputs (computed by PyTorch from the TorchScript model).
//
//   node compare.js MODEL.onnx FIXTURE_DIR
//   node compare.js --batch JOBS.json REPORT.jsonl
//
// FIXTURE_DIR/meta.json: {"inputs":  [{"file","dtype","shape"}, ...],
//                         "outputs": [{"file","dtype","shape"}, ...],
//                         "rtol": 1e-4}
// Files are raw little-endian arrays in C order. Inputs are fed BY POSITION (session.inputNames),
// except those whose spec has a "name" (e.g. weights fed as inputs): those by that name, the others
// by position among the remaining session inputs; a named one with "optional": true is left out when
// the model has no input of that name.
// outputs are read by position (session.outputNames), whatever the graph's names are.
// Floats pass when |a-b| <= rtol*(1+|b|) elementwise (NaN only matches NaN); integers/bools exactly,
// or within an output's "int_atol" (quantized values: steps of their grid).
// With "compare": "stats" (random ops), dtype and shape must match and values are compared by
// distribution: mean and standard deviation each within stat_tol * (PyTorch sample's std), and for
// integer/bool outputs every value within [min, max] of PyTorch's sample.
//
// Exit codes: 0 all outputs match, 1 mismatch (count, dtype, shape or values),
//             2 ONNX Runtime failed to load or run the model, 3 usage or fixture error.
// --batch: one node and one ONNX Runtime for many comparisons (a test family's cases): see ./job.js.
// Environment: T2O_ORT_THREADS (intra-op threads, default 1: ctest runs tests in parallel).
'use strict';

const fs = require('fs');
const path = require('path');

const EXIT_OK = 0, EXIT_MISMATCH = 1, EXIT_ORT = 2, EXIT_USAGE = 3;

// The comparison's output and early stop, per job (./job.js).
let say = null, die = null;

// dtype -> [TypedArray constructor, bytes per element, kind]
const DTYPES = {
  float32: [Float32Array, 4, 'float'],
  float64: [Float64Array, 8, 'float'],
  float16: [Uint16Array, 2, 'half'],
  int64: [BigInt64Array, 8, 'int'],
  int32: [Int32Array, 4, 'int'],
  int16: [Int16Array, 2, 'int'],
  int8: [Int8Array, 1, 'int'],
  uint8: [Uint8Array, 1, 'int'],
  bool: [Uint8Array, 1, 'bool'],
};
const ALIASES = { float: 'float32', double: 'float64', half: 'float16', long: 'int64', int: 'int32' };

function normDtype(d) {
  const n = ALIASES[d] || d;
  if (!DTYPES[n]) die(EXIT_USAGE, `unsupported dtype '${d}'`);
  return n;
}

function numel(shape) { return shape.reduce((a, b) => a * b, 1); }

function readArray(dir, spec, what) {
  const dtype = normDtype(spec.dtype);
  const [Ctor, size] = DTYPES[dtype];
  const file = path.join(dir, spec.file);
  let buf;
  try { buf = fs.readFileSync(file); } catch (e) { die(EXIT_USAGE, `cannot read ${what} ${file}: ${e.message}`); }
  const n = numel(spec.shape);
  if (buf.length !== n * size) {
    die(EXIT_USAGE, `${file}: ${buf.length} bytes, expected ${n * size} for ${dtype}[${spec.shape}]`);
  }
  // Copy into an aligned buffer (Buffer slices may be unaligned); the platform is little-endian.
  const ab = new ArrayBuffer(n * size);
  new Uint8Array(ab).set(buf);
  return { dtype, shape: spec.shape.slice(), data: new Ctor(ab), intAtol: spec.int_atol || 0 };
}

function halfToFloat(h) {
  const s = (h & 0x8000) ? -1 : 1, e = (h >> 10) & 0x1f, f = h & 0x3ff;
  if (e === 0) return s * Math.pow(2, -14) * (f / 1024);
  if (e === 31) return f ? NaN : s * Infinity;
  return s * Math.pow(2, e - 15) * (1 + f / 1024);
}

function toNumber(v, kind) {
  if (typeof v === 'bigint') return Number(v);
  if (kind === 'half') return halfToFloat(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v;
}

function unravel(i, shape) {
  const idx = new Array(shape.length).fill(0);
  for (let d = shape.length - 1; d >= 0; d--) { idx[d] = i % shape[d]; i = Math.floor(i / shape[d]); }
  return `[${idx.join(',')}]`;
}

function fmt(x) { return Number.isFinite(x) ? x.toExponential(3) : String(x); }

function compareOne(k, name, got, exp, rtol) {
  const label = `output ${k} (${name})`;
  const gotDtype = ALIASES[got.type] || got.type;
  const gotShape = Array.from(got.dims, Number);
  if (gotDtype !== exp.dtype) {
    say(`${label}: FAIL dtype ${gotDtype}, expected ${exp.dtype}`);
    return false;
  }
  if (gotShape.length !== exp.shape.length || gotShape.some((d, i) => d !== exp.shape[i])) {
    say(`${label}: FAIL shape [${gotShape}], expected [${exp.shape}]`);
    return false;
  }
  const kind = DTYPES[exp.dtype][2];
  const a = got.data, b = exp.data, n = b.length;
  if (a.length !== n) {
    say(`${label}: FAIL ${a.length} elements, expected ${n}`);
    return false;
  }
  let maxAbs = 0, maxRel = 0, worst = -1, worstScore = -1, bad = 0, firstBad = -1;
  for (let i = 0; i < n; i++) {
    const x = toNumber(a[i], kind), y = toNumber(b[i], kind);
    let ok, abs, score;
    if (kind === 'int' || kind === 'bool') {
      // Exact: compare BigInts as BigInts (int64 beyond 2^53).
      ok = (typeof a[i] === 'bigint' || typeof b[i] === 'bigint')
        ? BigInt(a[i]) === BigInt(b[i]) : Math.abs(x - y) <= exp.intAtol;
      abs = Math.abs(x - y);
      score = ok ? abs : Infinity;
    } else if (Number.isNaN(x) || Number.isNaN(y)) {
      ok = Number.isNaN(x) && Number.isNaN(y);
      abs = ok ? 0 : NaN;
      score = ok ? 0 : Infinity;
    } else if (!Number.isFinite(x) || !Number.isFinite(y)) {
      ok = x === y;
      abs = ok ? 0 : Infinity;
      score = ok ? 0 : Infinity;
    } else {
      abs = Math.abs(x - y);
      score = abs / (1 + Math.abs(y));
      ok = abs <= rtol * (1 + Math.abs(y));
    }
    if (!ok) { bad++; if (firstBad < 0) firstBad = i; }
    if (Number.isNaN(abs)) abs = Infinity;
    if (abs > maxAbs) maxAbs = abs;
    const rel = abs === 0 ? 0 : abs / Math.abs(y);
    if (rel > maxRel) maxRel = rel;
    if (score > worstScore) { worstScore = score; worst = i; }
  }
  const where = worst >= 0 ? unravel(worst, exp.shape) : '[]';
  const show = (v) => (kind === 'int' || kind === 'bool') ? String(v) : fmt(toNumber(v, kind));
  const detail = worst >= 0 ? ` (got ${show(a[worst])}, expected ${show(b[worst])})` : '';
  const status = bad ? `FAIL ${bad}/${n} elements out of tolerance` : 'PASS';
  const tol = (kind === 'float' || kind === 'half') ? ` worst_err/tol=${fmt(worstScore / rtol)} rtol=${rtol}` : (exp.intAtol ? ` int_atol=${exp.intAtol}` : ' exact');
  say(`${label}: ${status} ${exp.dtype}[${exp.shape}] max_abs_err=${fmt(maxAbs)} ` +
              `max_rel_err=${fmt(maxRel)} worst_index=${where}${detail}${tol}`);
  return bad === 0;
}

// Random outputs: the two samples' mean and std, and (integers/bools) their range.
function compareStats(k, name, got, exp, tol) {
  const label = `output ${k} (${name})`;
  const gotDtype = ALIASES[got.type] || got.type;
  const gotShape = Array.from(got.dims, Number);
  if (gotDtype !== exp.dtype) {
    say(`${label}: FAIL dtype ${gotDtype}, expected ${exp.dtype}`);
    return false;
  }
  if (gotShape.length !== exp.shape.length || gotShape.some((d, i) => d !== exp.shape[i])) {
    say(`${label}: FAIL shape [${gotShape}], expected [${exp.shape}]`);
    return false;
  }
  const kind = DTYPES[exp.dtype][2];
  const stats = (data) => {
    let sum = 0, sq = 0, lo = Infinity, hi = -Infinity;
    for (let i = 0; i < data.length; i++) {
      const x = toNumber(data[i], kind);
      sum += x; sq += x * x;
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
    const n = Math.max(data.length, 1), mean = sum / n;
    return { mean, std: Math.sqrt(Math.max(sq / n - mean * mean, 0)), lo, hi };
  };
  const a = stats(got.data), b = stats(exp.data);
  const allowed = tol * Math.max(b.std, 1e-6);
  let ok = Math.abs(a.mean - b.mean) <= allowed && Math.abs(a.std - b.std) <= allowed;
  if ((kind === 'int' || kind === 'bool') && (a.lo < b.lo || a.hi > b.hi)) ok = false;
  say(`${label}: ${ok ? 'PASS' : 'FAIL'} (distribution) ${exp.dtype}[${exp.shape}] mean ${fmt(a.mean)} vs ` +
              `${fmt(b.mean)}, std ${fmt(a.std)} vs ${fmt(b.std)}, range [${a.lo}, ${a.hi}] vs [${b.lo}, ${b.hi}], ` +
              `allowed ${fmt(allowed)}`);
  return ok;
}

let ort = null;
function loadOrt() {
  if (!ort) {
    try { ort = require('onnxruntime-node'); } catch (e) {
      die(EXIT_ORT, `cannot load onnxruntime-node (run 'npm ci' in tests/ort): ${e.message}`);
    }
  }
  return ort;
}

// One comparison: resolves to its exit code; what it prints is in `out`.
async function compareJob(modelPath, dir, io) {
  say = io.say;
  die = io.die;
  let meta;
  try { meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8')); } catch (e) {
    die(EXIT_USAGE, `cannot read ${path.join(dir, 'meta.json')}: ${e.message}`);
  }
  const rtol = typeof meta.rtol === 'number' ? meta.rtol : 1e-4;
  let inputs = (meta.inputs || []).map((s, i) => readArray(dir, s, `input ${i}`));
  const expected = (meta.outputs || []).map((s, i) => readArray(dir, s, `output ${i}`));

  const ort = loadOrt();
  const threads = parseInt(process.env.T2O_ORT_THREADS || '1', 10) || 1;
  let session;
  try {
    session = await ort.InferenceSession.create(modelPath, {
      executionProviders: ['cpu'], intraOpNumThreads: threads, interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    });
  } catch (e) {
    die(EXIT_ORT, `ONNX Runtime failed to load ${modelPath}: ${e.message}`);
  }

  let specs = meta.inputs || [];
  const absent = specs.map((s) => !!(s.name && s.optional && !session.inputNames.includes(s.name)));
  inputs = inputs.filter((_, i) => !absent[i]);
  specs = specs.filter((_, i) => !absent[i]);
  const named = new Set(specs.filter((s) => s.name).map((s) => s.name));
  const missing = [...named].filter((n) => !session.inputNames.includes(n));
  const positional = session.inputNames.filter((n) => !named.has(n));
  if (missing.length || positional.length + named.size !== inputs.length) {
    say(`FAIL: model has ${session.inputNames.length} inputs (${session.inputNames.join(', ')}), ` +
                `fixture has ${inputs.length}` + (missing.length ? ` (not in the model: ${missing.join(', ')})` : ''));
    release(session);
    return EXIT_MISMATCH;
  }
  const feeds = {};
  let next = 0;
  inputs.forEach((t, i) => {
    // ORT's bool tensors take Uint8Array data; float16 takes Uint16Array bits.
    const name = specs[i].name || positional[next++];
    feeds[name] = new ort.Tensor(t.dtype, t.data, t.shape);
  });

  let results;
  const t0 = process.hrtime.bigint();
  try { results = await session.run(feeds); } catch (e) {
    release(session);
    die(EXIT_ORT, `ONNX Runtime failed to run ${modelPath}: ${e.message}`);
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;

  let ok = true;
  if (session.outputNames.length !== expected.length) {
    say(`FAIL: model has ${session.outputNames.length} outputs (${session.outputNames.join(', ')}), ` +
                `fixture expects ${expected.length}`);
    ok = false;
  }
  const n = Math.min(session.outputNames.length, expected.length);
  for (let k = 0; k < n; k++) {
    const name = session.outputNames[k];
    const same = meta.compare === 'stats'
      ? compareStats(k, name, results[name], expected[k], typeof meta.stat_tol === 'number' ? meta.stat_tol : 0.15)
      : compareOne(k, name, results[name], expected[k], rtol);
    if (!same) ok = false;
  }
  say(`${ok ? 'PASS' : 'FAIL'}: ${path.basename(modelPath)} vs ${dir} ` +
              `(${n} output(s), run ${ms.toFixed(1)} ms)`);
  release(session);
  return ok ? EXIT_OK : EXIT_MISMATCH;
}

function release(session) {
  if (session && typeof session.release === 'function') session.release().catch(() => {});
}

require('./job').main('compare.js', compareJob);
