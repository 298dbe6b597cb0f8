/**
 * ReceiveMessage returns only the attributes the request names. System attributes
 * (AttributeNames / MessageSystemAttributeNames): `All` or exact names. Message attributes
 * (MessageAttributeNames): `All`, `.*`, a prefix ending in `.*` (`order.*` matches `order.id`),
 * or exact names. Names that match nothing are ignored, as AWS ignores them.
 */

export function selectSystemAttributes(
  attributes: Readonly<Record<string, string>>,
  names: readonly string[],
): Record<string, string> {
  if (names.length === 0) return {};
  if (names.includes('All')) return { ...attributes };
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = attributes[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

export function selectMessageAttributes<T>(
  attributes: Readonly<Record<string, T>>,
  names: readonly string[],
): Record<string, T> {
  if (names.length === 0) return {};
  if (names.includes('All') || names.includes('.*')) return { ...attributes };
  const prefixes = names.filter((n) => n.endsWith('.*')).map((n) => n.slice(0, -1));
  const exact = new Set(names.filter((n) => !n.endsWith('.*')));
  const out: Record<string, T> = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (exact.has(name) || prefixes.some((prefix) => name.startsWith(prefix))) out[name] = value;
  }
  return out;
}
