/**
 * A minimal SQS client that speaks either wire protocol, for tests that must show one behaviour
 * over both: `call(action, input)` takes the JSON protocol's input shape and returns the JSON
 * protocol's output shape. Over the query protocol the input is flattened to form parameters
 * (Attribute.N.Name, MessageAttribute.N.Value.StringValue, <Action>RequestEntry.N.Id, …) and the
 * XML answer is read back into the same shape, for the members these tests look at. Errors come
 * back as `{ error: { code, message } }` with the legacy query code over both protocols.
 */

export type Protocol = 'json' | 'query';

export interface CallResult {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly error?: { readonly code: string; readonly message: string };
  /** The raw response text (XML or JSON). */
  readonly raw: string;
}

type Input = Record<string, unknown>;

export class ProtocolClient {
  constructor(
    readonly endpoint: string,
    readonly protocol: Protocol,
  ) {}

  async call(action: string, input: Input = {}, headers: Record<string, string> = {}): Promise<CallResult> {
    return this.protocol === 'json' ? this.callJson(action, input, headers) : this.callQuery(action, input, headers);
  }

  /** The call, failing the test unless it succeeded. */
  async ok(action: string, input: Input = {}, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
    const result = await this.call(action, input, headers);
    if (result.error !== undefined)
      throw new Error(`${action} over ${this.protocol} failed: ${result.error.code}: ${result.error.message}`);
    return result.body;
  }

  private async callJson(action: string, input: Input, headers: Record<string, string>): Promise<CallResult> {
    const res = await fetch(`${this.endpoint}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${action}`, ...headers },
      body: JSON.stringify(input),
    });
    const raw = await res.text();
    const body = (raw === '' ? {} : JSON.parse(raw)) as Record<string, unknown>;
    if (res.status >= 300) {
      const code = (res.headers.get('x-amzn-query-error') ?? '').split(';')[0] ?? '';
      return { status: res.status, body, raw, error: { code, message: String(body['message'] ?? '') } };
    }
    return { status: res.status, body, raw };
  }

  private async callQuery(action: string, input: Input, headers: Record<string, string>): Promise<CallResult> {
    const params = new URLSearchParams({ Action: action, Version: '2012-11-05' });
    for (const [name, value] of Object.entries(input)) flatten(params, action, name, value);
    const res = await fetch(`${this.endpoint}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: params.toString(),
    });
    const raw = await res.text();
    if (res.status >= 300) {
      return {
        status: res.status,
        body: {},
        raw,
        error: { code: text(raw, 'Code') ?? '', message: text(raw, 'Message') ?? '' },
      };
    }
    return { status: res.status, body: readQueryResult(raw), raw };
  }
}

function flatten(params: URLSearchParams, action: string, name: string, value: unknown): void {
  const listNames: Record<string, string> = {
    AttributeNames: 'AttributeName',
    MessageAttributeNames: 'MessageAttributeName',
    MessageSystemAttributeNames: 'MessageSystemAttributeName',
  };
  if (name === 'Entries') {
    (value as Input[]).forEach((entry, i) => {
      for (const [field, v] of Object.entries(entry))
        flatten(params, action, `${action}RequestEntry.${i + 1}.${field}`, v);
    });
    return;
  }
  const last = name.split('.').pop() ?? name;
  const prefix = name.slice(0, name.length - last.length);
  if (listNames[last] !== undefined) {
    (value as string[]).forEach((v, i) => params.set(`${prefix}${listNames[last]}.${i + 1}`, v));
  } else if (last === 'Attributes' || last === 'tags') {
    Object.entries(value as Record<string, string>).forEach(([k, v], i) => {
      params.set(`${prefix}Attribute.${i + 1}.Name`, k);
      params.set(`${prefix}Attribute.${i + 1}.Value`, v);
    });
  } else if (last === 'MessageAttributes' || last === 'MessageSystemAttributes') {
    const element = last === 'MessageAttributes' ? 'MessageAttribute' : 'MessageSystemAttribute';
    Object.entries(value as Record<string, Record<string, string>>).forEach(([k, v], i) => {
      params.set(`${prefix}${element}.${i + 1}.Name`, k);
      for (const [field, fv] of Object.entries(v)) params.set(`${prefix}${element}.${i + 1}.Value.${field}`, fv);
    });
  } else {
    params.set(name, String(value));
  }
}

function unescapeXml(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&#x([0-9a-fA-F]+);/g, (_m, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/&amp;/g, '&');
}

function text(xml: string, element: string): string | undefined {
  const match = new RegExp(`<${element}>([\\s\\S]*?)</${element}>`).exec(xml);
  return match?.[1] === undefined ? undefined : unescapeXml(match[1]);
}

function all(xml: string, element: string): string[] {
  return [...xml.matchAll(new RegExp(`<${element}>([\\s\\S]*?)</${element}>`, 'g'))].map((m) => m[1] ?? '');
}

function nameValues(xml: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const attribute of all(xml, 'Attribute')) out[text(attribute, 'Name') ?? ''] = text(attribute, 'Value') ?? '';
  return out;
}

/** The members of a query-protocol result these tests read, in the JSON protocol's shape. */
function readQueryResult(xml: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const receive = /<ReceiveMessageResult>([\s\S]*)<\/ReceiveMessageResult>/.exec(xml)?.[1];
  if (receive !== undefined) {
    out['Messages'] = all(receive, 'Message').map((m) => {
      const attributes = nameValues(m.replace(/<MessageAttribute>[\s\S]*?<\/MessageAttribute>/g, ''));
      return {
        MessageId: text(m, 'MessageId'),
        ReceiptHandle: text(m, 'ReceiptHandle'),
        Body: text(m, 'Body'),
        ...(Object.keys(attributes).length > 0 ? { Attributes: attributes } : {}),
      };
    });
    if ((out['Messages'] as unknown[]).length === 0) delete out['Messages'];
    return out;
  }
  for (const element of ['QueueUrl', 'TaskHandle', 'MessageId']) {
    const value = text(xml, element);
    if (value !== undefined) out[element] = value;
  }
  if (/<GetQueueAttributesResult>/.test(xml)) out['Attributes'] = nameValues(xml);
  const successful = [
    ...all(xml, 'SendMessageBatchResultEntry'),
    ...all(xml, 'DeleteMessageBatchResultEntry'),
    ...all(xml, 'ChangeMessageVisibilityBatchResultEntry'),
  ];
  const failed = all(xml, 'BatchResultErrorEntry');
  if (/BatchResult>/.test(xml)) {
    out['Successful'] = successful.map((e) => ({ Id: text(e, 'Id') }));
    out['Failed'] = failed.map((e) => ({ Id: text(e, 'Id'), Code: text(e, 'Code'), Message: text(e, 'Message') }));
  }
  return out;
}
