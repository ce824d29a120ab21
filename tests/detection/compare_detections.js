#!/usr/bin/env node
// Runs an exported detection model in ONNX Runtime (CPU) on a fixture's image and compares its
// detections with PyTorch's, robustly to reordering.
//
//   node compare_detections.js MODEL.onnx FIXTURE_DIR [MIN_FRACTION]
//
// FIXTURE_DIR/meta.json is tests/ort/compare.js's: one input (the image), outputs boxes [N, 4],
// scores [N], labels [N] (+ masks [N, 1, H, W] | keypoints [N, K, 3], keypoint scores [N, K]).
//
// Why not elementwise: with random weights many boxes have nearly equal scores, and float
// differences of 1e-6 between PyTorch and ONNX Runtime reorder them, or swap which of two
// near-equal candidates survives a top-k or score cut-off. So detections are matched as sets:
//
//   Each PyTorch detection, in PyTorch's (descending score) order, is matched to the not yet
//   matched ONNX Runtime detection with the same label, |score difference| <= 1e-3 + 1e-3*score,
//   and the highest box IoU, if that IoU is >= 0.99 (boxes whose coordinates all agree within
//   1e-3*(1+|v|) have IoU 1, also when degenerate). The matched fraction is
//   matched / max(N_torch, N_ort); the test passes when it is >= MIN_FRACTION (default 0.95) and,
//   for every matched pair, the other per-detection outputs (masks, keypoints, keypoint scores)
//   agree within |a-b| <= 1e-3*(1+|b|) for 99.9% of their elements (bilinear resizing of masks
//   rounds slightly differently).
// An image where PyTorch finds no detection passes only if ONNX Runtime finds none either.
//
// Prints one summary line. Exit codes: 0 pass, 1 mismatch, 2 ONNX Runtime failed, 3 usage/fixture error.
'use strict';

const fs = require('fs');
const path = require('path');

function die(code, msg) {
  process.stderr.write(`compare_detections.js: ${msg}\n`);
  process.exit(code);
}

const DTYPES = {
  float32: [Float32Array, 4, 'float32'],
  int64: [BigInt64Array, 8, 'int64'],
  int32: [Int32Array, 4, 'int32'],
  uint8: [Uint8Array, 1, 'uint8'],
  bool: [Uint8Array, 1, 'bool'],
};

function readArray(dir, spec) {
  const [Ctor, size] = DTYPES[spec.dtype] || die(3, `unsupported dtype ${spec.dtype}`);
  const buf = fs.readFileSync(path.join(dir, spec.file));
  const n = spec.shape.reduce((a, b) => a * b, 1);
  if (buf.length !== n * size) die(3, `${spec.file}: ${buf.length} bytes, expected ${n * size}`);
  const ab = new ArrayBuffer(n * size);
  new Uint8Array(ab).set(buf);
  return { shape: spec.shape.slice(), data: new Ctor(ab) };
}

const num = (v) => (typeof v === 'bigint' ? Number(v) : v);

function iou(a, ai, b, bi) {
  const [ax1, ay1, ax2, ay2] = [0, 1, 2, 3].map((k) => a[4 * ai + k]);
  const [bx1, by1, bx2, by2] = [0, 1, 2, 3].map((k) => b[4 * bi + k]);
  const iw = Math.max(0, Math.min(ax2, bx2) - Math.max(ax1, bx1));
  const ih = Math.max(0, Math.min(ay2, by2) - Math.max(ay1, by1));
  const inter = iw * ih;
  const union = (ax2 - ax1) * (ay2 - ay1) + (bx2 - bx1) * (by2 - by1) - inter;
  // Random weights give degenerate boxes (zero width or height, IoU undefined): those count as the
  // same box when every coordinate agrees within 1e-3*(1+|v|).
  let close = true;
  for (let k = 0; k < 4; ++k) close = close && Math.abs(a[4 * ai + k] - b[4 * bi + k]) <= 1e-3 * (1 + Math.abs(a[4 * ai + k]));
  if (close) return 1;
  return union > 0 ? inter / union : 0;
}

// Elements i of a per-detection output (first axis = detection).
function rowOf(t, i) {
  const per = t.shape.slice(1).reduce((a, b) => a * b, 1);
  return Array.from(t.data.subarray(i * per, (i + 1) * per), num);
}

async function main() {
  const [modelPath, fixtureDir, minFractionText] = process.argv.slice(2);
  if (!modelPath || !fixtureDir) die(3, 'usage: compare_detections.js MODEL.onnx FIXTURE_DIR [MIN_FRACTION]');
  const minFraction = minFractionText ? Number(minFractionText) : 0.95;
  const meta = JSON.parse(fs.readFileSync(path.join(fixtureDir, 'meta.json'), 'utf8'));
  const ortDir = path.join(__dirname, '..', 'ort', 'node_modules', 'onnxruntime-node');
  const ort = require(ortDir);

  let session, results;
  try {
    const threads = Number(process.env.T2O_ORT_THREADS || 1);
    session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: threads, interOpNumThreads: 1 });
    const feeds = {};
    meta.inputs.forEach((spec, k) => {
      const a = readArray(fixtureDir, spec);
      feeds[session.inputNames[k]] = new ort.Tensor(DTYPES[spec.dtype][2], a.data, a.shape);
    });
    results = await session.run(feeds);
  } catch (e) {
    die(2, `ONNX Runtime: ${String(e.message || e).split('\n')[0]}`);
  }
  const got = session.outputNames.map((n) => ({ shape: results[n].dims.slice(), data: results[n].data }));
  const want = meta.outputs.map((spec) => readArray(fixtureDir, spec));
  if (got.length !== want.length) die(1, `${got.length} outputs, PyTorch has ${want.length}`);
  for (let k = 0; k < want.length; ++k) {
    if (got[k].shape.length !== want[k].shape.length || got[k].shape.slice(1).join() !== want[k].shape.slice(1).join())
      die(1, `output ${k}: shape [${got[k].shape}], PyTorch [${want[k].shape}] (beyond the detection axis)`);
  }
  const [gotBoxes, gotScores, gotLabels] = got;
  const [wantBoxes, wantScores, wantLabels] = want;
  const nGot = gotScores.shape[0], nWant = wantScores.shape[0];

  const used = new Array(nGot).fill(false);
  const pairs = [];
  for (let i = 0; i < nWant; ++i) {
    const s = num(wantScores.data[i]);
    let best = -1, bestIou = 0.99;
    for (let j = 0; j < nGot; ++j) {
      if (used[j] || num(gotLabels.data[j]) !== num(wantLabels.data[i])) continue;
      if (Math.abs(num(gotScores.data[j]) - s) > 1e-3 + 1e-3 * Math.abs(s)) continue;
      const o = iou(wantBoxes.data, i, gotBoxes.data, j);
      if (o >= bestIou) { best = j; bestIou = o; }
    }
    if (best >= 0) { used[best] = true; pairs.push([i, best]); }
  }
  const denominator = Math.max(nGot, nWant);
  const fraction = denominator === 0 ? 1 : pairs.length / denominator;

  // Other per-detection outputs of matched pairs.
  const extraProblems = [];
  for (let k = 3; k < want.length; ++k) {
    let total = 0, bad = 0, worst = 0;
    for (const [i, j] of pairs) {
      const a = rowOf(got[k], j), b = rowOf(want[k], i);
      for (let e = 0; e < b.length; ++e) {
        ++total;
        const d = Math.abs(a[e] - b[e]);
        if (!(d <= 1e-3 * (1 + Math.abs(b[e])))) { ++bad; worst = Math.max(worst, d); }
      }
    }
    if (total && bad > 0.001 * total) extraProblems.push(`output ${k}: ${bad}/${total} elements differ (worst ${worst})`);
  }
  const summary = `${pairs.length} of ${nWant} PyTorch detections matched, ONNX Runtime has ${nGot}: fraction ${fraction.toFixed(3)} (min ${minFraction})`;
  if (fraction < minFraction || extraProblems.length) {
    die(1, `${summary}${extraProblems.length ? '; ' + extraProblems.join('; ') : ''}`);
  }
  process.stdout.write(`compare_detections.js: ${summary}\n`);
}

main().catch((e) => die(3, String(e.stack || e)));
