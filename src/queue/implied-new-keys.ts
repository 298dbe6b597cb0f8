/**
 * What the storage layer may assume about keys a send never writes (MvccStoreOptions.impliedNewKeys):
 * a data row written under a freshly minted message id (TxnWrite.isNewKey) means that id's
 * receive-state row has never existed either. The store remembers it as absent, so the message's
 * first receive, and the validation of that receive, do not seek LevelDB for a row that is not
 * there (once per consumed message). Only a cache hint: nothing a replica decides depends on it.
 */
import { GenerationKeys, parseMessageRowKey } from './key-layout.js';

const none: readonly Uint8Array[] = [];

export function impliedNewQueueKeys(newKey: Uint8Array): readonly Uint8Array[] {
  const row = parseMessageRowKey(newKey);
  if (row === undefined || row.family !== 'data') return none;
  return [new GenerationKeys(row.queueName, row.generation).receiveState(row.partition, row.messageId)];
}
