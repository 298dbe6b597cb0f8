/**
 * The element names of the query (form + XML) protocol that the current JSON service model no
 * longer carries. Since SQS moved to JSON, the model keeps `flattened` but dropped `locationName`;
 * the query protocol still names a flattened list element after its member (`AttributeName.1`,
 * `<QueueUrl>`) and a flattened map entry after its singular (`Attribute.1.Name`,
 * `<Tag><Key>…</Key><Value>…</Value></Tag>`). These names are the ones AWS's query API reference
 * documents for each action; everything else (which members, their order and types) still comes
 * from the model.
 */

/** Element name of one item of a flattened list shape. */
export const queryListMemberNames: Readonly<Record<string, string>> = {
  AWSAccountIdList: 'AWSAccountId',
  ActionNameList: 'ActionName',
  AttributeNameList: 'AttributeName',
  MessageAttributeNameList: 'MessageAttributeName',
  MessageSystemAttributeList: 'MessageSystemAttributeName',
  TagKeyList: 'TagKey',
  QueueUrlList: 'QueueUrl',
  MessageList: 'Message',
  StringList: 'StringListValue',
  BinaryList: 'BinaryListValue',
  BatchResultErrorEntryList: 'BatchResultErrorEntry',
  SendMessageBatchRequestEntryList: 'SendMessageBatchRequestEntry',
  SendMessageBatchResultEntryList: 'SendMessageBatchResultEntry',
  DeleteMessageBatchRequestEntryList: 'DeleteMessageBatchRequestEntry',
  DeleteMessageBatchResultEntryList: 'DeleteMessageBatchResultEntry',
  ChangeMessageVisibilityBatchRequestEntryList: 'ChangeMessageVisibilityBatchRequestEntry',
  ChangeMessageVisibilityBatchResultEntryList: 'ChangeMessageVisibilityBatchResultEntry',
  ListMessageMoveTasksResultEntryList: 'ListMessageMoveTasksResultEntry',
};

export interface QueryMapNames {
  readonly entry: string;
  readonly key: string;
  readonly value: string;
}

/** Entry, key and value element names of each flattened map shape. */
export const queryMapNames: Readonly<Record<string, QueryMapNames>> = {
  QueueAttributeMap: { entry: 'Attribute', key: 'Name', value: 'Value' },
  MessageSystemAttributeMap: { entry: 'Attribute', key: 'Name', value: 'Value' },
  MessageBodyAttributeMap: { entry: 'MessageAttribute', key: 'Name', value: 'Value' },
  MessageBodySystemAttributeMap: { entry: 'MessageSystemAttribute', key: 'Name', value: 'Value' },
  TagMap: { entry: 'Tag', key: 'Key', value: 'Value' },
};

/** The namespace of every query-protocol XML response. */
export const queryXmlNamespace = 'http://queue.amazonaws.com/doc/2012-11-05/';
