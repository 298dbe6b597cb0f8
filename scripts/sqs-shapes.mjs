// Derives the structural part of AWS's SQS service model (operations with their HTTP binding and
// errors, shapes, members, enums, flattening and wire names) from botocore's service-2.json,
// leaving out its documentation. The gateway's codecs need the operations and shapes; the rest is
// what an AWS SDK needs besides (model/botocore is written from this file, see botocore-model.mjs).
// It is committed as model/sqs-shapes.json so that a node runs without the full model beside it.
// Re-run `npm run sqs-shapes -- <service-2.json>` when the AWS model changes.

const metadataKeys = [
  'apiVersion',
  'targetPrefix',
  'protocol',
  'protocols',
  'jsonVersion',
  'serviceId',
  'awsQueryCompatible',
  'endpointPrefix',
  'serviceAbbreviation',
  'serviceFullName',
  'signatureVersion',
  'signingName',
  'uid',
  'auth',
];
const operationKeys = ['http', 'input', 'output', 'errors'];
const shapeRefKeys = ['shape', 'locationName', 'flattened'];
const shapeKeys = ['type', 'required', 'enum', 'exception', 'flattened', 'box'];

function pick(object, keys) {
  const out = {};
  for (const key of keys) if (object[key] !== undefined) out[key] = object[key];
  return out;
}

function stripShape(shape) {
  const out = pick(shape, shapeKeys);
  if (shape.members !== undefined) {
    out.members = {};
    for (const [name, ref] of Object.entries(shape.members)) out.members[name] = pick(ref, shapeRefKeys);
  }
  for (const key of ['member', 'key', 'value']) if (shape[key] !== undefined) out[key] = pick(shape[key], shapeRefKeys);
  return out;
}

function stripOperation(op) {
  const out = pick(op, operationKeys);
  for (const key of ['input', 'output']) if (out[key] !== undefined) out[key] = { shape: out[key].shape };
  if (out.errors !== undefined) out.errors = out.errors.map((ref) => ({ shape: ref.shape }));
  return out;
}

/** The structural model: what the gateway and an SDK read, and nothing else. */
export function deriveSqsShapes(model) {
  const operations = {};
  for (const [name, op] of Object.entries(model.operations)) operations[name] = stripOperation(op);
  const shapes = {};
  for (const name of Object.keys(model.shapes).sort()) shapes[name] = stripShape(model.shapes[name]);
  return { metadata: pick(model.metadata, metadataKeys), operations, shapes };
}

/** The file's text as committed: one-space indentation, a final newline. */
export function renderJson(value) {
  return JSON.stringify(value, null, 1) + '\n';
}
