import { SqsApiError, type AwsErrorDefinition } from './errors.js';
import type { EncodedError } from './json-protocol.js';
import { isBase64 } from './json-protocol.js';
import { queryListMemberNames, queryMapNames, queryXmlNamespace } from './query-names.js';
import type { ModelStructure, ModelValue, ShapeRef, SqsServiceModel } from './service-model.js';
import { decodeStrictUtf8 } from './strict-utf8.js';

/**
 * The AWS query protocol: a request is a flat list of `Name=value` pairs (a form POST body or a
 * GET query string) in which lists and maps are spelt with 1-based indexes
 * (`Attribute.1.Name=…&Attribute.1.Value=…`); a response is XML in the 2012-11-05 namespace.
 * Both directions walk the service model; element names come from query-names.ts.
 */

export const xmlContentType = 'text/xml';

/**
 * A form body as text. Its bytes must be UTF-8, like the percent-escaped bytes inside it: bytes
 * that are not are a MalformedQueryString, the same as an escape that decodes to them, rather than
 * U+FFFD stored in place of what the client sent.
 */
export function formBodyText(body: Uint8Array): string {
  const decoded = decodeStrictUtf8(body);
  if ('text' in decoded) return decoded.text;
  const byte = decoded.invalidByte.toString(16).toUpperCase().padStart(2, '0');
  throw new SqsApiError(
    'MalformedQueryString',
    `The request body is not valid UTF-8 (byte 0x${byte} at offset ${decoded.invalidOffset}).`,
  );
}

/** Splits a form-encoded string strictly: a bad percent escape is a MalformedQueryString. */
export function parseFormParameters(text: string): Map<string, string> {
  const params = new Map<string, string>();
  if (text === '') return params;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawKey = eq < 0 ? pair : pair.slice(0, eq);
    const rawValue = eq < 0 ? '' : pair.slice(eq + 1);
    const key = decodeFormComponent(rawKey);
    if (!params.has(key)) params.set(key, decodeFormComponent(rawValue));
  }
  return params;
}

function decodeFormComponent(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    throw new SqsApiError(
      'MalformedQueryString',
      `The query string contains a malformed percent-encoded sequence: ${raw.slice(0, 64)}`,
    );
  }
}

/**
 * Parameter names split on dots into a tree (`Attribute.1.Name` → Attribute → 1 → Name), so that
 * decoding visits each parameter once however many list items a request claims: rescanning every
 * name per item would let a request with many entries cost quadratic time.
 */
interface ParamNode {
  value?: string;
  readonly children: Map<string, ParamNode>;
}

function buildParamTree(params: ReadonlyMap<string, string>): ParamNode {
  const root: ParamNode = { children: new Map() };
  for (const [key, value] of params) {
    let node = root;
    for (const segment of key.split('.')) {
      let child = node.children.get(segment);
      if (child === undefined) {
        child = { children: new Map() };
        node.children.set(segment, child);
      }
      node = child;
    }
    node.value = value;
  }
  return root;
}

/** Decodes the operation's input structure from query parameters. */
export function decodeQueryRequest(
  model: SqsServiceModel,
  inputShape: string | undefined,
  params: ReadonlyMap<string, string>,
): ModelStructure {
  if (inputShape === undefined) return {};
  return decodeStructure(model, inputShape, buildParamTree(params), '');
}

function decodeStructure(model: SqsServiceModel, shapeName: string, node: ParamNode, path: string): ModelStructure {
  const shape = model.shape(shapeName);
  if (shape.type !== 'structure') throw new SqsApiError('InternalError', `Shape ${shapeName} is not a structure`);
  const out: ModelStructure = {};
  for (const [member, ref] of model.members(shapeName)) {
    const value = decodeMember(model, member, ref, node, path);
    if (value !== undefined) out[member] = value;
  }
  return out;
}

function decodeMember(
  model: SqsServiceModel,
  member: string,
  ref: ShapeRef,
  parent: ParamNode,
  path: string,
): ModelValue | undefined {
  const shape = model.shape(ref.shape);
  if (shape.type === 'list') {
    const itemName = queryListMemberNames[ref.shape];
    const isFlattened = ref.flattened === true || shape.flattened === true;
    const preferred = itemName !== undefined && isFlattened ? itemName : member;
    // Clients in the wild spell a list by its element name (AWS), by the member name, or with
    // the non-flattened `.member.N` form: accept all three.
    const candidates: Array<[ParamNode | undefined, string]> = [
      [parent.children.get(preferred), preferred],
      [parent.children.get(member), member],
      [parent.children.get(member)?.children.get('member'), `${member}.member`],
    ];
    for (const [listNode, stem] of candidates) {
      const items = listNode === undefined ? [] : indexedChildren(listNode);
      if (items.length === 0) continue;
      return items
        .map(([index, itemNode]) => decodeNode(model, shape.member, itemNode, `${path}${stem}.${index}`))
        .filter((v): v is ModelValue => v !== undefined);
    }
    return undefined;
  }
  if (shape.type === 'map') {
    const names = queryMapNames[ref.shape] ?? { entry: member, key: 'key', value: 'value' };
    for (const stem of [...new Set([names.entry, member])]) {
      const mapNode = parent.children.get(stem);
      const items = mapNode === undefined ? [] : indexedChildren(mapNode);
      if (items.length === 0) continue;
      const out: ModelStructure = {};
      for (const [index, entryNode] of items) {
        // An entry is a key and its value, both required: half an entry is refused rather than
        // dropped, since dropping it would quietly change what the client asked for.
        const entryName = `${path}${stem}.${index}`;
        const key = entryNode.children.get(names.key)?.value;
        if (key === undefined) throw missingEntryPart(`${entryName}.${names.key}`);
        const valueNode = entryNode.children.get(names.value);
        const value =
          valueNode === undefined
            ? undefined
            : decodeNode(model, shape.value, valueNode, `${entryName}.${names.value}`);
        if (value === undefined) throw missingEntryPart(`${entryName}.${names.value}`);
        if (!(key in out)) out[key] = value;
      }
      return out;
    }
    return undefined;
  }
  const node = parent.children.get(member);
  return node === undefined ? undefined : decodeNode(model, ref, node, path + member);
}

function missingEntryPart(name: string): SqsApiError {
  return new SqsApiError('MissingParameter', `The request must contain the parameter ${name}.`);
}

function decodeNode(model: SqsServiceModel, ref: ShapeRef, node: ParamNode, name: string): ModelValue | undefined {
  const shape = model.shape(ref.shape);
  if (shape.type === 'structure') {
    if (node.children.size === 0) return undefined;
    return decodeStructure(model, ref.shape, node, `${name}.`);
  }
  if (shape.type === 'list' || shape.type === 'map') {
    // A list or map directly inside a list or map: its items hang off this node.
    return decodeMember(model, '', ref, { children: new Map([['', node]]) }, name);
  }
  if (node.value === undefined) return undefined;
  return decodeScalar(shape.type, node.value, name);
}

function decodeScalar(type: string, raw: string, name: string): ModelValue {
  switch (type) {
    case 'integer':
    case 'long': {
      if (!/^[+-]?\d+$/.test(raw.trim()))
        throw new SqsApiError(
          'InvalidParameterValue',
          `Value ${raw} for parameter ${name} is invalid. Reason: must be an integer.`,
        );
      const n = Number(raw.trim());
      if (!Number.isSafeInteger(n))
        throw new SqsApiError(
          'InvalidParameterValue',
          `Value ${raw} for parameter ${name} is invalid. Reason: out of range.`,
        );
      return n;
    }
    case 'double':
    case 'float': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n))
        throw new SqsApiError(
          'InvalidParameterValue',
          `Value ${raw} for parameter ${name} is invalid. Reason: must be a number.`,
        );
      return n;
    }
    case 'boolean': {
      const lower = raw.toLowerCase();
      if (lower !== 'true' && lower !== 'false')
        throw new SqsApiError(
          'InvalidParameterValue',
          `Value ${raw} for parameter ${name} is invalid. Reason: must be true or false.`,
        );
      return lower === 'true';
    }
    case 'blob':
      if (!isBase64(raw))
        throw new SqsApiError(
          'InvalidParameterValue',
          `Value for parameter ${name} is invalid. Reason: must be base64-encoded.`,
        );
      return new Uint8Array(Buffer.from(raw, 'base64'));
    default:
      return raw;
  }
}

/** The children of a list or map node named by a positive index (1-based), in index order. */
function indexedChildren(node: ParamNode): Array<[number, ParamNode]> {
  const items: Array<[number, ParamNode]> = [];
  for (const [segment, child] of node.children) {
    if (/^[1-9]\d{0,5}$/.test(segment)) items.push([Number(segment), child]);
  }
  return items.sort((a, b) => a[0] - b[0]);
}

/** `<ActionResponse><ActionResult>…</ActionResult><ResponseMetadata>…` for an operation's output. */
export function encodeXmlResponse(
  model: SqsServiceModel,
  action: string,
  outputShape: string | undefined,
  output: ModelStructure,
  requestId: string,
): string {
  const parts: string[] = [`<?xml version="1.0" encoding="UTF-8"?>\n<${action}Response xmlns="${queryXmlNamespace}">`];
  if (outputShape !== undefined) {
    parts.push(`<${action}Result>`);
    encodeStructureMembers(model, outputShape, output, parts);
    parts.push(`</${action}Result>`);
  }
  parts.push(`<ResponseMetadata><RequestId>${escapeXml(requestId)}</RequestId></ResponseMetadata></${action}Response>`);
  return parts.join('');
}

function encodeStructureMembers(
  model: SqsServiceModel,
  shapeName: string,
  value: ModelStructure,
  parts: string[],
): void {
  const shape = model.shape(shapeName);
  if (shape.type !== 'structure') return;
  for (const [member, ref] of model.members(shapeName)) {
    const memberValue = value[member];
    if (memberValue !== undefined) encodeNamed(model, member, ref, memberValue, parts);
  }
}

function encodeNamed(model: SqsServiceModel, member: string, ref: ShapeRef, value: ModelValue, parts: string[]): void {
  const shape = model.shape(ref.shape);
  if (shape.type === 'list') {
    const isFlattened = ref.flattened === true || shape.flattened === true;
    const itemName = queryListMemberNames[ref.shape] ?? member;
    const items = value as ModelValue[];
    if (isFlattened) {
      for (const item of items) encodeNamed(model, itemName, shape.member, item, parts);
    } else {
      parts.push(`<${member}>`);
      for (const item of items) encodeNamed(model, 'member', shape.member, item, parts);
      parts.push(`</${member}>`);
    }
    return;
  }
  if (shape.type === 'map') {
    const names = queryMapNames[ref.shape] ?? { entry: member, key: 'key', value: 'value' };
    for (const [key, entry] of Object.entries(value as ModelStructure)) {
      parts.push(`<${names.entry}><${names.key}>${escapeXml(key)}</${names.key}>`);
      encodeNamed(model, names.value, shape.value, entry, parts);
      parts.push(`</${names.entry}>`);
    }
    return;
  }
  if (shape.type === 'structure') {
    parts.push(`<${member}>`);
    encodeStructureMembers(model, ref.shape, value as ModelStructure, parts);
    parts.push(`</${member}>`);
    return;
  }
  const text = shape.type === 'blob' ? Buffer.from(value as Uint8Array).toString('base64') : String(value);
  parts.push(`<${member}>${escapeXml(text)}</${member}>`);
}

/** The query protocol's own words for a missing queue (the JSON protocol's are the catalogue's). */
const queryNonExistentQueueMessage = 'The specified queue does not exist for this wsdl version.';

export function encodeXmlError(definition: AwsErrorDefinition, errorMessage: string, requestId: string): EncodedError {
  const message =
    definition.name === 'QueueDoesNotExist' && errorMessage === definition.defaultMessage
      ? queryNonExistentQueueMessage
      : errorMessage;
  const body =
    `<?xml version="1.0" encoding="UTF-8"?>\n<ErrorResponse xmlns="${queryXmlNamespace}"><Error><Type>${definition.fault}</Type>` +
    `<Code>${escapeXml(definition.queryCode)}</Code><Message>${escapeXml(message)}</Message><Detail/></Error>` +
    `<RequestId>${escapeXml(requestId)}</RequestId></ErrorResponse>`;
  return { status: definition.httpStatus, headers: { 'content-type': xmlContentType }, body };
}

/**
 * Escapes text for an XML element. Characters XML 1.0 cannot carry at all never reach here in a
 * body (InvalidMessageContents), but may in an echoed parameter: they become U+FFFD rather than
 * breaking the document for the client's parser. `\r` is escaped so that
 * XML end-of-line normalisation does not turn a body's CRLF into LF.
 */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"'\r\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, (c) => {
    switch (c) {
      case '&':
        return '&amp;';
      case '<':
        return '&lt;';
      case '>':
        return '&gt;';
      case '"':
        return '&quot;';
      case "'":
        return '&apos;';
      case '\r':
        return '&#xD;';
      default:
        return '\ufffd';
    }
  });
}
