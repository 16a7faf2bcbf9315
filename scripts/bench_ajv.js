#!/usr/bin/env node
// Times ajv (Debian node-ajv, 6.x) + JSON.parse on the same payload activity-push validates, against the JSON
// Schema `activity-push schema --format json-schema` exports — what a Node backend would run per request.
//
// usage: bench_ajv.js SCHEMA.json PAYLOAD.json SECONDS
// Prints one JSON object: {"per_sec": N, "valid": bool, "version": "6.12.6"} or {"error": "..."}.
// The payload is read once as a string (a Node server's request body); each iteration is JSON.parse + validate.
'use strict';
const fs = require('fs');

function loadAjv() {
  // Debian installs Node modules (ajv and its dependencies uri-js, fast-deep-equal, …) under /usr/share/nodejs,
  // which a `node` not built by Debian (NodeSource) does not search: add it to the module path.
  const debianPaths = ['/usr/share/nodejs', '/usr/lib/nodejs'];
  process.env.NODE_PATH = [process.env.NODE_PATH, ...debianPaths].filter(Boolean).join(':');
  require('module').Module._initPaths();
  try {
    return { Ajv: require('ajv'), version: require('ajv/package.json').version };
  } catch (e) {
    throw new Error(`ajv not found (apt-get install node-ajv): ${e.message.split('\n')[0]}`);
  }
}

function main() {
  const [schemaPath, payloadPath, secondsText] = process.argv.slice(2);
  const seconds = Number(secondsText || '2');
  try {
    const { Ajv, version } = loadAjv();
    const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
    // ajv 6 knows drafts 4–7 only. The exporter writes a 2020-12 `$schema` line but uses only keywords draft-07
    // has (type, properties, required, enum, const, if/then, format, $ref as a JSON pointer into $defs), so the
    // line is dropped and ajv judges the same rules.
    delete schema.$schema;
    // (ajv 6 ignores keywords beside a $ref; the exporter puts only $comment there, so no rule is lost.)
    const ajv = new Ajv({ allErrors: false, schemaId: 'auto', logger: false });
    const validate = ajv.compile(schema);
    const body = fs.readFileSync(payloadPath, 'utf8');
    const valid = validate(JSON.parse(body));
    let sink = 0;
    for (let i = 0; i < 20000; i++) { if (validate(JSON.parse(body))) sink++; }  // warm up the JIT
    let n = 0;
    const start = process.hrtime.bigint();
    let elapsed = 0;
    do {
      for (let i = 0; i < 1000; i++) { if (validate(JSON.parse(body))) sink++; }
      n += 1000;
      elapsed = Number(process.hrtime.bigint() - start) / 1e9;
    } while (elapsed < seconds);
    process.stdout.write(JSON.stringify({ per_sec: n / elapsed, valid, version, sink }) + '\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ error: String(e && e.message || e) }) + '\n');
  }
}

main();
