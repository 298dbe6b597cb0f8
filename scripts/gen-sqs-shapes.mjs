// Writes model/sqs-shapes.json from the AWS service model (default: ../shared beside the repo).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deriveSqsShapes } from './sqs-shapes.mjs';

const root = new URL('..', import.meta.url).pathname;
const source = process.argv[2] ?? join(root, '..', 'shared', 'aws', 'botocore-data', 'sqs', '2012-11-05', 'service-2.json');
const shapes = deriveSqsShapes(JSON.parse(readFileSync(source, 'utf8')));
writeFileSync(join(root, 'model', 'sqs-shapes.json'), JSON.stringify(shapes, null, 1) + '\n');
console.log(`model/sqs-shapes.json: ${Object.keys(shapes.operations).length} operations, ${Object.keys(shapes.shapes).length} shapes from ${source}`);
