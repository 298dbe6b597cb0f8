// model/sqs-shapes.json in botocore's own layout and format (<data path>/sqs/<apiVersion>/service-2.json),
// so that a Python client whose botocore predates SQS's JSON protocol speaks it when AWS_DATA_PATH
// names model/botocore (the boto3 test suites do). Written from model/sqs-shapes.json alone, by
// `npm run botocore-model`; a test checks the committed copy is byte for byte what this writes.

/** Where the service model goes, relative to the data path. */
export function botocoreModelPath(shapes) {
  return ['sqs', shapes.metadata.apiVersion, 'service-2.json'];
}

/** The botocore service model: the same metadata, operations (named) and shapes. */
export function botocoreModel(shapes) {
  const operations = {};
  for (const [name, op] of Object.entries(shapes.operations)) operations[name] = { name, ...op };
  return { version: '2.0', metadata: shapes.metadata, operations, shapes: shapes.shapes };
}
