#!/usr/bin/env node
// Replays a --repro directory (ONNX's backend-test layout) in ONNX Runtime and prints, per output,
// the largest absolute difference from the recorded output_K.pb, as JSON.
//   node replay.js ORT_NODE_MODULES DIR
'use strict';

const fs = require('fs');
const path = require('path');
const { readTensorFile } = require('../../tools/ort_runner.js');

async function main() {
  const [ortDir, dir] = process.argv.slice(2);
  const ort = require(path.join(ortDir, 'onnxruntime-node'));
  const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'));
  const data = path.join(dir, 'test_data_set_0');
  const feeds = {};
  for (let k = 0; fs.existsSync(path.join(data, `input_${k}.pb`)); ++k) {
    const t = readTensorFile(path.join(data, `input_${k}.pb`));
    feeds[t.name || session.inputNames[k]] = new ort.Tensor(t.type, t.data, t.dims);
  }
  const results = await session.run(feeds);
  const outputs = session.outputNames.map((name, k) => {
    const expected = readTensorFile(path.join(data, `output_${k}.pb`));
    const got = results[name];
    if (got.dims.join(',') !== expected.dims.join(',')) throw new Error(`${name}: shape ${got.dims} vs ${expected.dims}`);
    let max = 0;
    for (let i = 0; i < got.data.length; ++i) max = Math.max(max, Math.abs(Number(got.data[i]) - Number(expected.data[i])));
    return { name, max_abs_error: max };
  });
  process.stdout.write(JSON.stringify({ outputs }) + '\n');
}

main().catch((e) => { process.stderr.write(`replay.js: ${e.message}\n`); process.exit(1); });
