// Validates mutation-testing-elements reports against the schema published
// in the `mutation-testing-report-schema` npm package (the one Stryker's
// tools read). Usage: node validate.mjs REPORT.json...
// Exit 0 if every report is valid; 1 with each error on stderr if not.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

const require = createRequire(import.meta.url);
const schemaPath = require.resolve(
  'mutation-testing-report-schema/mutation-testing-report-schema.json',
);
const schema = JSON.parse(readFileSync(schemaPath, 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: true });
addFormats(ajv);
const validate = ajv.compile(schema);

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node validate.mjs REPORT.json...');
  process.exit(2);
}
let failed = false;
for (const file of files) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  if (validate(report)) {
    console.log(`${file}: valid (mutation-testing-report-schema)`);
  } else {
    failed = true;
    for (const error of validate.errors) {
      console.error(`${file}: ${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`);
    }
  }
}
process.exit(failed ? 1 : 0);
