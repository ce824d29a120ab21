// The command-line form shared by the comparison scripts (compare.js, ../quantized/compare_quant.js):
//
//   node SCRIPT MODEL.onnx FIXTURE_DIR              one comparison; exits with its code
//   node SCRIPT --batch JOBS.json REPORT.jsonl      many in one node and one ONNX Runtime
//
// A script gives main() its comparison: async (model, dir, io) => exit code, printing with io.say()
// and stopping early with io.die(code, msg) (thrown, caught here). --batch: JOBS.json is
// [{"model", "fixture"}, ...]; after each job one line is appended to REPORT.jsonl: {"index", "code",
// "text"} (text: what the single form prints, the stop's line last). The batch exits 0 when every job
// ran, 3 on a usage error; a job that crashes node leaves the later ones unreported, for the caller to
// run again.
'use strict';

const fs = require('fs');

class Stop extends Error {
  constructor(code, msg) { super(msg); this.code = code; }
}

async function runOne(name, compare, model, dir) {
  const out = [];
  const io = {
    say: (line) => out.push(line),
    die: (code, msg) => { throw new Stop(code, `${name}: ${msg}`); },
  };
  let code;
  try {
    code = await compare(model, dir, io);
  } catch (e) {
    if (e instanceof Stop) {
      out.push(e.message);
      code = e.code;
    } else {
      out.push(`${name}: unexpected error: ${e && e.stack ? e.stack : e}`);
      code = 2;
    }
  }
  return { code, text: out.join('\n'), stopped: out.length > 0 && out[out.length - 1].startsWith(`${name}: `) };
}

async function main(name, compare) {
  const args = process.argv.slice(2);
  if (args.length === 3 && args[0] === '--batch') {
    let jobs;
    try { jobs = JSON.parse(fs.readFileSync(args[1], 'utf8')); } catch (e) {
      process.stderr.write(`${name}: cannot read ${args[1]}: ${e.message}\n`);
      process.exit(3);
    }
    const report = fs.openSync(args[2], 'w');
    for (let i = 0; i < jobs.length; i++) {
      const r = await runOne(name, compare, jobs[i].model, jobs[i].fixture);
      fs.writeSync(report, JSON.stringify({ index: i, code: r.code, text: r.text }) + '\n');
    }
    fs.closeSync(report);
    process.exit(0);
  }
  if (args.length !== 2) {
    process.stderr.write(`${name}: usage: node ${name} MODEL.onnx FIXTURE_DIR | --batch JOBS.json REPORT.jsonl\n`);
    process.exit(3);
  }
  const r = await runOne(name, compare, args[0], args[1]);
  // Single form: the comparison on stdout, a stop's line on stderr.
  const lines = r.text ? r.text.split('\n') : [];
  if (r.stopped) {
    if (lines.length > 1) process.stdout.write(lines.slice(0, -1).join('\n') + '\n');
    process.stderr.write(lines[lines.length - 1] + '\n');
  } else if (lines.length) {
    process.stdout.write(r.text + '\n');
  }
  process.exit(r.code);
}

module.exports = { main };
