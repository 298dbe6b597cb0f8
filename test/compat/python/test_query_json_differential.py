"""The same requests through Debian's boto3 over the query protocol (its own model) and over JSON
(the current model, loaded from RAFTQ_BOTOCORE_DATA): every parsed response must be equal once the
values that differ by nature are masked (ids, receipt handles, timestamps, the queue-name prefix).

boto3 checks MD5OfMessageBody and MD5OfMessageAttributes of sends and receives itself, so custom
attribute types (Number.float, Binary.gif) and binary values are checked end to end too.
"""
import base64
import json
import os
import re
import time

import boto3
import botocore.loaders
import botocore.session
from botocore.exceptions import ClientError

ENDPOINT = os.environ["RAFTQ_SQS_ENDPOINT"]
JSON_MODEL_PATH = os.environ["RAFTQ_BOTOCORE_DATA"]
VOLATILE = re.compile(r"MessageId|ReceiptHandle|Timestamp|SequenceNumber|NextToken")


def client(protocol):
    session = botocore.session.Session()
    if protocol == "json":
        session.register_component("data_loader", botocore.loaders.Loader(extra_search_paths=[JSON_MODEL_PATH]))
    sqs = boto3.Session(botocore_session=session, region_name="us-east-1").client("sqs", endpoint_url=ENDPOINT)
    assert sqs.meta.service_model.protocol == protocol
    return sqs


def scenario(sqs, prefix):
    """Runs every action both models share, with errors, and returns each call's parsed answer."""
    answers = []

    def call(operation, **params):
        try:
            response = getattr(sqs, operation)(**params)
        except ClientError as err:
            response = {
                "Error": {k: err.response["Error"].get(k) for k in ("Code", "Message")},
                "HTTPStatusCode": err.response["ResponseMetadata"]["HTTPStatusCode"],
            }
        response.pop("ResponseMetadata", None)
        answers.append((operation, response))
        return response

    url = call("create_queue", QueueName=prefix + "std", Attributes={"VisibilityTimeout": "40"}, tags={"team": "a"})["QueueUrl"]
    dlq = call("create_queue", QueueName=prefix + "dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    call("set_queue_attributes", QueueUrl=url, Attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 5})})
    call("set_queue_attributes", QueueUrl=url, Attributes={"VisibilityTimeout": "99999"})
    call("get_queue_url", QueueName=prefix + "std")
    call("list_queues", QueueNamePrefix=prefix)
    call("list_queues", QueueNamePrefix=prefix, MaxResults=1)
    call("list_dead_letter_source_queues", QueueUrl=dlq)
    call("list_dead_letter_source_queues", QueueUrl=dlq, MaxResults=1)
    call("tag_queue", QueueUrl=url, Tags={"x": "y", "empty": ""})
    call("untag_queue", QueueUrl=url, TagKeys=["team"])
    call("list_queue_tags", QueueUrl=url)
    call("add_permission", QueueUrl=url, Label="l1", AWSAccountIds=["111122223333"], Actions=["SendMessage"])
    call("add_permission", QueueUrl=url, Label="l1", AWSAccountIds=["111122223333"], Actions=["SendMessage"])
    call("remove_permission", QueueUrl=url, Label="l1")
    attributes = {
        "s": {"DataType": "String", "StringValue": "héllo <&>"},
        "n": {"DataType": "Number.float", "StringValue": "1.5"},
        "b": {"DataType": "Binary.gif", "BinaryValue": b"\x00\x01\xff"},
        "dot.name": {"DataType": "String", "StringValue": " "},
    }
    trace = {"AWSTraceHeader": {"DataType": "String", "StringValue": "Root=1-5759e988-bd862e3fe1be46a994272793"}}
    call("send_message", QueueUrl=url, MessageBody="body\r\n<&>", MessageAttributes=attributes, MessageSystemAttributes=trace)
    call("send_message", QueueUrl=url, MessageBody="x", MessageAttributes={"AWS.reserved": {"DataType": "String", "StringValue": "v"}})
    call("send_message", QueueUrl=url, MessageBody="x", MessageAttributes={"n": {"DataType": "Number", "StringValue": "1e400"}})
    call("send_message_batch", QueueUrl=url, Entries=[{"Id": "a", "MessageBody": "x", "MessageAttributes": attributes}, {"Id": "b", "MessageBody": "y", "DelaySeconds": 901}])
    call("send_message_batch", QueueUrl=url, Entries=[])
    call("receive_message", QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["All"], MessageAttributeNames=["All"], VisibilityTimeout=0)
    received = call("receive_message", QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["All"], MessageAttributeNames=["s", "b"])
    handles = sorted(m["ReceiptHandle"] for m in received.get("Messages", []))
    assert len(handles) == 2
    call("change_message_visibility", QueueUrl=url, ReceiptHandle=handles[0], VisibilityTimeout=10)
    call("change_message_visibility_batch", QueueUrl=url, Entries=[{"Id": "a", "ReceiptHandle": handles[0], "VisibilityTimeout": 5}, {"Id": "b", "ReceiptHandle": "bogus", "VisibilityTimeout": 5}])
    call("delete_message", QueueUrl=url, ReceiptHandle=handles[0])
    call("delete_message", QueueUrl=url, ReceiptHandle="bogus")
    call("delete_message_batch", QueueUrl=url, Entries=[{"Id": "a", "ReceiptHandle": handles[1]}, {"Id": "b", "ReceiptHandle": "bogus"}])
    call("get_queue_attributes", QueueUrl=url, AttributeNames=["All"])
    call("get_queue_attributes", QueueUrl=url, AttributeNames=["NoSuchAttribute"])
    call("purge_queue", QueueUrl=url)
    call("purge_queue", QueueUrl=url)
    fifo = call("create_queue", QueueName=prefix + "f.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    call("send_message", QueueUrl=fifo, MessageBody="x")
    call("send_message", QueueUrl=fifo, MessageBody="x", MessageGroupId="g")
    call("send_message", QueueUrl=fifo, MessageBody="x", MessageGroupId="g", MessageDeduplicationId="d")
    call("send_message", QueueUrl=fifo, MessageBody="x", MessageGroupId="g", MessageDeduplicationId="d", DelaySeconds=5)
    call("send_message_batch", QueueUrl=fifo, Entries=[{"Id": "a", "MessageBody": "y", "MessageGroupId": "g", "MessageDeduplicationId": "d2"}])
    call("receive_message", QueueUrl=fifo, AttributeNames=["All"], MaxNumberOfMessages=10)
    call("get_queue_attributes", QueueUrl=fifo, AttributeNames=["All"])
    call("delete_queue", QueueUrl=url)
    call("get_queue_url", QueueName=prefix + "std")
    call("send_message", QueueUrl=url, MessageBody="x")
    return answers


def masked(value, prefix):
    """Masks what differs by nature and drops empty lists, which the query protocol cannot carry."""
    text = json.dumps(value, sort_keys=True, default=lambda b: "b64:" + base64.b64encode(b).decode())
    # The one wording AWS gives differently per protocol: a missing queue is "... for this wsdl
    # version." over query only.
    value = json.loads(text.replace(prefix, "PREFIX-").replace(" for this wsdl version.", "."))

    def walk(v):
        if isinstance(v, dict):
            return {k: ("<volatile>" if VOLATILE.search(k) else walk(x)) for k, x in v.items() if x != []}
        if isinstance(v, list):
            return [walk(x) for x in v]
        return v

    return walk(value)


def test_every_shared_action_parses_to_the_same_answer_over_query_and_json():
    stamp = str(time.time_ns())
    query_answers = scenario(client("query"), f"dq{stamp}-")
    json_answers = scenario(client("json"), f"dj{stamp}-")
    assert len(query_answers) == len(json_answers)
    operations = set()
    for (operation, query_answer), (_, json_answer) in zip(query_answers, json_answers):
        operations.add(operation)
        assert masked(query_answer, f"dq{stamp}-") == masked(json_answer, f"dj{stamp}-"), operation
    # All 20 actions Debian's query model knows were compared.
    assert len(operations) == 20
