// Derives the structural part of AWS's SQS service model (operations, shapes, members, enums,
// flattening and wire names) from botocore's service-2.json, leaving out its documentation. The
// gateway's codecs need only this; it is committed as model/sqs-shapes.json so that a node runs
// without the full model beside it. Re-run `npm run sqs-shapes` when the AWS model changes.

const shapeRefKeys = ['shape', 'locationName', 'flattened'];
const shapeKeys = ['type', 'required', 'enum', 'exception', 'flattened'];

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

/** The structural model: what the gateway reads, and nothing else. */
export function deriveSqsShapes(model) {
  const operations = {};
  for (const [name, op] of Object.entries(model.operations)) {
    operations[name] = {};
    if (op.input !== undefined) operations[name].input = { shape: op.input.shape };
    if (op.output !== undefined) operations[name].output = { shape: op.output.shape };
  }
  const shapes = {};
  for (const name of Object.keys(model.shapes).sort()) shapes[name] = stripShape(model.shapes[name]);
  return {
    metadata: pick(model.metadata, ['apiVersion', 'targetPrefix', 'protocol', 'protocols', 'jsonVersion', 'serviceId']),
    operations,
    shapes,
  };
}
