/**
 * Queue tags: at most 50 per queue, keys up to 128 and values up to 256 characters.
 */
import { sqsLimits } from '../base/limits.js';
import { InvalidParameterValueError, OverLimitError } from './errors.js';

/** Throws unless `current` with `added` applied stays within AWS's tag limits. */
export function validateTags(
  added: Readonly<Record<string, string>>,
  current: Readonly<Record<string, string>>,
): Record<string, string> {
  for (const [key, value] of Object.entries(added)) {
    if (key.length === 0 || key.length > sqsLimits.tagKeyLengthMax.value) {
      throw new InvalidParameterValueError(
        'Tags',
        `tag keys must be 1 to ${sqsLimits.tagKeyLengthMax.value} characters`,
      );
    }
    if (key.toLowerCase().startsWith('aws:'))
      throw new InvalidParameterValueError('Tags', 'the aws: prefix is reserved');
    if (value.length > sqsLimits.tagValueLengthMax.value) {
      throw new InvalidParameterValueError(
        'Tags',
        `tag values must be at most ${sqsLimits.tagValueLengthMax.value} characters`,
      );
    }
  }
  const merged = { ...current, ...added };
  const count = Object.keys(merged).length;
  if (count > sqsLimits.tagsPerQueueMax.value)
    throw new OverLimitError('tags on a queue', count, sqsLimits.tagsPerQueueMax.value);
  return merged;
}
