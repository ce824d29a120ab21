#!/usr/bin/env node
// Dropout exported in training mode, checked by its statistics in ONNX Runtime (CPU):
//
//   node dropout_stats.js MODEL.onnx FIXTURE_DIR
//
// FIXTURE_DIR/meta.json (tests/ort/compare.js's format) gives the float32 input and the output's
// shape; FIXTURE_DIR/../case.json gives the dropout probability p. Every output element must be 0 or
// the input element scaled by 1 / (1 - p) (relative error 1e-6), and the fraction of zeros within
// 0.05 of p: with 4096 elements its standard deviation is sqrt(p (1 - p) / 4096) <= 0.008, so a
// correct export fails this with probability below 1e-9. p = 0: the output equals the input exactly.
//
// Exit codes: 0 pass, 1 fail, 2 ONNX Runtime failed, 3 usage or fixture error.
'use strict';

const fs = require('fs');
const path = require('path');

async function dropoutJob(modelPath, dir, io) {
  let meta, p;
  try {
    meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
    p = JSON.parse(fs.readFileSync(path.join(dir, '..', 'case.json'), 'utf8')).p;
  } catch (e) {
    io.die(3, `cannot read the fixture ${dir}: ${e.message}`);
  }
  if (typeof p !== 'number' || meta.inputs.length !== 1 || meta.inputs[0].dtype !== 'float32')
    io.die(3, `${dir}: expected one float32 input and a dropout probability p in ../case.json`);
  const spec = meta.inputs[0];
  const raw = fs.readFileSync(path.join(dir, spec.file));
  const x = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));

  let ort;
  try { ort = require(path.join(__dirname, '..', 'ort', 'node_modules', 'onnxruntime-node')); } catch (e) {
    io.die(2, `cannot load onnxruntime-node (run 'npm ci' in tests/ort): ${e.message}`);
  }
  let results;
  try {
    const session = await ort.InferenceSession.create(modelPath, {
      executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1,
    });
    results = await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', x, spec.shape) });
    results = results[session.outputNames[0]];
  } catch (e) {
    io.die(2, `ONNX Runtime failed on ${modelPath}: ${e.message}`);
  }
  const expectedShape = meta.outputs[0].shape;
  if (results.type !== 'float32' || JSON.stringify(results.dims) !== JSON.stringify(expectedShape)) {
    io.say(`FAIL: output ${results.type}[${results.dims}], expected float32[${expectedShape}]`);
    return 1;
  }
  const y = results.data;
  const scale = 1 / (1 - p);
  let zeros = 0, wrong = 0, firstWrong = -1;
  for (let i = 0; i < y.length; i++) {
    if (y[i] === 0 && x[i] !== 0) {
      zeros++;
      continue;
    }
    const want = Math.fround(x[i] * scale);
    if (Math.abs(y[i] - want) > 1e-6 * (1 + Math.abs(want))) {
      if (firstWrong < 0) firstWrong = i;
      wrong++;
    }
  }
  const fraction = zeros / y.length;
  const ok = wrong === 0 && Math.abs(fraction - p) <= 0.05 && (p !== 0 || zeros === 0);
  io.say(`${ok ? 'PASS' : 'FAIL'}: p=${p}: ${zeros} of ${y.length} zeroed (${fraction.toFixed(4)}), ` +
         `${wrong} kept value(s) not x/(1-p)` + (firstWrong >= 0 ? ` (first at ${firstWrong}: ${y[firstWrong]} for x=${x[firstWrong]})` : ''));
  return ok ? 0 : 1;
}

require('../ort/job.js').main('dropout_stats.js', dropoutJob);
