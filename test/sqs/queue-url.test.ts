import { describe, expect, it } from 'vitest';
import { queueNameFromUrl, tryQueueNameFromUrl } from '../../src/sqs/queue-url.js';

describe('queue names from QueueUrls', () => {
  it('answers a URL seen before as it did the first time', () => {
    for (let round = 0; round < 3; round++) {
      expect(tryQueueNameFromUrl('http://127.0.0.1:9324/000000000000/orders')).toBe('orders');
      expect(tryQueueNameFromUrl('https://sqs.us-east-1.amazonaws.com/123456789012/jobs.fifo')).toBe('jobs.fifo');
      expect(tryQueueNameFromUrl('/queue/elastic')).toBe('elastic');
      expect(tryQueueNameFromUrl('bare-name')).toBe('bare-name');
    }
  });

  it('refuses a URL that names no queue every time it is sent, not only the first', () => {
    for (let round = 0; round < 3; round++) {
      expect(tryQueueNameFromUrl('http://host/a/b/c')).toBeUndefined();
      expect(tryQueueNameFromUrl('http://host/acct/bad%ZZname')).toBeUndefined();
      expect(() => queueNameFromUrl('not a url')).toThrow(/not valid for this endpoint/);
    }
  });

  it('keeps answering once more distinct URLs have been seen than it remembers', () => {
    for (let i = 0; i < 3_000; i++) expect(tryQueueNameFromUrl(`http://h/000000000000/q${i}`)).toBe(`q${i}`);
    expect(tryQueueNameFromUrl('http://h/000000000000/q7')).toBe('q7');
  });

  it('parses a URL too long to remember', () => {
    const longHost = 'h'.repeat(600);
    expect(tryQueueNameFromUrl(`http://${longHost}/000000000000/long`)).toBe('long');
    expect(tryQueueNameFromUrl(`http://${longHost}/000000000000/long`)).toBe('long');
  });
});
