import { SqsApiError } from './errors.js';

/**
 * Queue URLs. raftq builds `http://HOST/ACCOUNT/NAME` from the request's Host header, so a client
 * that reached the node by any name gets URLs it can reach again. It accepts the forms found in
 * the wild: the same path under any host (`sqs.us-east-1.amazonaws.com`, `queue.amazonaws.com`,
 * `localhost:4566`, ...), any account id, ElasticMQ's `/queue/NAME`, a bare path, and (as AWS)
 * a bare queue name. Only the last path segment names the queue.
 */

export function buildQueueUrl(options: {
  host: string;
  accountId: string;
  queueName: string;
  scheme?: string;
}): string {
  return `${options.scheme ?? 'http'}://${options.host}/${options.accountId}/${encodeURIComponent(options.queueName)}`;
}

const queueNameSegmentPattern = /^[A-Za-z0-9_.-]{1,80}$/;

/** The queue name a QueueUrl names; InvalidAddress if it names none. */
export function queueNameFromUrl(queueUrl: string): string {
  const name = tryQueueNameFromUrl(queueUrl);
  if (name === undefined)
    throw new SqsApiError('InvalidAddress', `The address ${queueUrl.slice(0, 256)} is not valid for this endpoint.`);
  return name;
}

/**
 * Names of recently seen QueueUrls. Every message-path request carries its QueueUrl, and clients
 * send the same few again and again; parsing one (a WHATWG URL, a split, a percent-decoding, a
 * pattern) was about 1 % of a consuming node's main thread. Bounded: a client that sends many
 * different URLs only empties it more often.
 */
const recentQueueNames = new Map<string, string | undefined>();
const recentQueueNamesMax = 1_024;
/** Longer strings are parsed each time: the memo stays small whatever a client sends. */
const rememberedUrlLengthMax = 512;

export function tryQueueNameFromUrl(queueUrl: string): string | undefined {
  if (queueUrl.length > rememberedUrlLengthMax) return parseQueueNameFromUrl(queueUrl);
  const known = recentQueueNames.get(queueUrl);
  if (known !== undefined || recentQueueNames.has(queueUrl)) return known;
  const name = parseQueueNameFromUrl(queueUrl);
  if (recentQueueNames.size >= recentQueueNamesMax) recentQueueNames.clear();
  recentQueueNames.set(queueUrl, name);
  return name;
}

function parseQueueNameFromUrl(queueUrl: string): string | undefined {
  let path: string;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(queueUrl)) {
    try {
      path = new URL(queueUrl).pathname;
    } catch {
      return undefined;
    }
  } else if (queueUrl.startsWith('/')) {
    path = queueUrl.split('?')[0] ?? '';
  } else {
    // A bare queue name, which AWS takes in place of a URL.
    return queueNameSegmentPattern.test(queueUrl) ? queueUrl : undefined;
  }
  return queueNameFromPath(path);
}

/** The queue named by a request path (`/ACCOUNT/NAME`, `/queue/NAME`), if it names one. */
export function queueNameFromPath(path: string): string | undefined {
  const segments = path.split('/').filter((s) => s !== '');
  if (segments.length < 1 || segments.length > 2) return undefined;
  let last: string;
  try {
    last = decodeURIComponent(segments[segments.length - 1] ?? '');
  } catch {
    return undefined;
  }
  return queueNameSegmentPattern.test(last) ? last : undefined;
}

const queueNamePattern = /^[A-Za-z0-9_-]{1,80}$/;
/** AWS's words for a queue name it refuses. */
export const queueNameRule = 'Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length';
const fifoQueueNamePattern = /^[A-Za-z0-9_-]{1,75}\.fifo$/;

/** CreateQueue's name rule: 1-80 of [A-Za-z0-9_-], the `.fifo` suffix counting toward the 80. */
export function validateQueueName(name: string | undefined): string {
  if (name === undefined || name === '')
    throw new SqsApiError('MissingParameter', 'The request must contain the parameter QueueName.');
  if (!queueNamePattern.test(name) && !fifoQueueNamePattern.test(name)) {
    throw new SqsApiError('InvalidParameterValue', queueNameRule);
  }
  return name;
}
