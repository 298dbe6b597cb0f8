// Message bodies carry the send time in their first bytes, so a consumer in another process can
// measure end-to-end latency. Everything else in a body is filler built once; only the timestamp
// is rewritten per send.

/** Width of the decimal microseconds-since-epoch timestamp at the start of every body. A multiple of 3 so its base64 form is a fixed, separable prefix. */
export const timestampDigits = 18;

/** Microseconds since the epoch, comparable across processes of one machine. */
export function nowEpochMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}

/** A body of `bytes` ASCII bytes: a zeroed timestamp, then filler. */
export function bodyTemplate(bytes: number): Buffer {
  const body = Buffer.alloc(Math.max(bytes, timestampDigits), 'x');
  body.write('0'.repeat(timestampDigits), 0, 'latin1');
  return body;
}

export function formatTimestamp(micros: number): string {
  return String(micros).padStart(timestampDigits, '0');
}

export function writeTimestamp(target: Buffer, offset: number, micros: number): void {
  target.write(formatTimestamp(micros), offset, 'latin1');
}

/** The send time written at the start of `body`, or null when it carries none. */
export function readTimestampMicros(body: string | Buffer): number | null {
  const head = typeof body === 'string' ? body.slice(0, timestampDigits) : body.toString('latin1', 0, timestampDigits);
  if (!/^\d{18}$/.test(head)) return null;
  const micros = Number(head);
  return micros > 0 ? micros : null;
}
