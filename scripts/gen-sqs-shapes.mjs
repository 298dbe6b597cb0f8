// Writes model/sqs-shapes.json from AWS's SQS service model (the service-2.json named on the
// command line), then model/botocore from it: `npm run sqs-shapes -- <service-2.json>`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderJson, deriveSqsShapes } from './sqs-shapes.mjs';
import { writeBotocoreModel } from './gen-botocore-model.mjs';

const source = process.argv[2];
if (source === undefined) {
  console.error('usage: npm run sqs-shapes -- <path to AWS SQS service-2.json>');
  process.exit(2);
}
const root = new URL('..', import.meta.url).pathname;
const shapes = deriveSqsShapes(JSON.parse(readFileSync(source, 'utf8')));
writeFileSync(join(root, 'model', 'sqs-shapes.json'), renderJson(shapes));
console.log(
  `model/sqs-shapes.json: ${Object.keys(shapes.operations).length} operations, ${Object.keys(shapes.shapes).length} shapes from ${source}`,
);
writeBotocoreModel(root);
