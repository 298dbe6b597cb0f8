// Writes model/botocore/sqs/<apiVersion>/service-2.json from model/sqs-shapes.json:
// `npm run botocore-model` (gen-sqs-shapes.mjs runs it too).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { botocoreModel, botocoreModelPath } from './botocore-model.mjs';
import { renderJson } from './sqs-shapes.mjs';

export function writeBotocoreModel(root) {
  const shapes = JSON.parse(readFileSync(join(root, 'model', 'sqs-shapes.json'), 'utf8'));
  const target = join(root, 'model', 'botocore', ...botocoreModelPath(shapes));
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, renderJson(botocoreModel(shapes)));
  console.log(`${join('model', 'botocore', ...botocoreModelPath(shapes))}: written from model/sqs-shapes.json`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href)
  writeBotocoreModel(new URL('..', import.meta.url).pathname);
