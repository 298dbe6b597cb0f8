"""boto3 (Debian's, unmodified) against a raftq SQS endpoint.

Run by test/clients/boto3.test.ts twice: with Debian botocore's own model (the query protocol)
and with AWS_DATA_PATH pointing at the current service model (the JSON protocol).
RAFTQ_SQS_ENDPOINT names the endpoint; RAFTQ_EXPECT_PROTOCOL the protocol the client must use.
"""
import hashlib
import struct

import pytest
from botocore.exceptions import ClientError

from sqs_endpoint import fresh_name

def attributes_md5(attributes):
    """MD5 of message attributes as AWS defines it, written independently of the server."""
    def prefixed(data):
        return struct.pack(">I", len(data)) + data

    digest = hashlib.md5()
    for name in sorted(attributes):
        value = attributes[name]
        digest.update(prefixed(name.encode()) + prefixed(value["DataType"].encode()))
        if value["DataType"].startswith("Binary"):
            digest.update(b"\x02" + prefixed(value["BinaryValue"]))
        else:
            digest.update(b"\x01" + prefixed(value["StringValue"].encode()))
    return digest.hexdigest()


def error_code(excinfo):
    return excinfo.value.response["Error"]["Code"]


def test_queue_lifecycle_and_listing(sqs):
    name = fresh_name("life")
    url = sqs.create_queue(QueueName=name, Attributes={"VisibilityTimeout": "20"}, tags={"team": "core"})["QueueUrl"]
    assert url.endswith(f"/000000000000/{name}")
    assert sqs.get_queue_url(QueueName=name)["QueueUrl"] == url
    assert url in sqs.list_queues(QueueNamePrefix=name)["QueueUrls"]
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert attributes["VisibilityTimeout"] == "20"
    assert attributes["QueueArn"].endswith(f":{name}")
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"DelaySeconds": "1"})
    assert sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["DelaySeconds"])["Attributes"] == {"DelaySeconds": "1"}
    assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"team": "core"}
    sqs.tag_queue(QueueUrl=url, Tags={"env": "ci"})
    sqs.untag_queue(QueueUrl=url, TagKeys=["team"])
    assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"env": "ci"}
    sqs.add_permission(QueueUrl=url, Label="grant", AWSAccountIds=["111122223333"], Actions=["ReceiveMessage"])
    sqs.remove_permission(QueueUrl=url, Label="grant")
    sqs.delete_queue(QueueUrl=url)
    with pytest.raises(ClientError) as excinfo:
        sqs.get_queue_url(QueueName=name)
    assert error_code(excinfo) == "AWS.SimpleQueueService.NonExistentQueue"


def test_send_receive_delete_with_attributes(sqs):
    url = sqs.create_queue(QueueName=fresh_name("msg"))["QueueUrl"]
    message_attributes = {
        "city": {"DataType": "String", "StringValue": "Zürich"},
        "count": {"DataType": "Number", "StringValue": "12.5"},
        "blob": {"DataType": "Binary.gz", "BinaryValue": b"\x00\x01\xff"},
    }
    body = "line one\r\nline two & <three> \U0001F600"
    sent = sqs.send_message(QueueUrl=url, MessageBody=body, MessageAttributes=message_attributes)
    assert sent["MD5OfMessageBody"] == hashlib.md5(body.encode()).hexdigest()
    assert sent["MD5OfMessageAttributes"] == attributes_md5(message_attributes)

    received = sqs.receive_message(QueueUrl=url, MessageAttributeNames=["All"], AttributeNames=["All"], WaitTimeSeconds=1)
    (message,) = received["Messages"]
    assert message["Body"] == body
    assert message["MD5OfBody"] == sent["MD5OfMessageBody"]
    assert message["MessageAttributes"] == message_attributes
    assert message["MD5OfMessageAttributes"] == attributes_md5(message_attributes)
    assert message["Attributes"]["ApproximateReceiveCount"] == "1"
    assert int(message["Attributes"]["SentTimestamp"]) > 0
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0)
    again = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1)["Messages"][0]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=again["ReceiptHandle"])
    assert "Messages" not in sqs.receive_message(QueueUrl=url)


def test_batches_report_successes_and_failures(sqs):
    url = sqs.create_queue(QueueName=fresh_name("batch"))["QueueUrl"]
    result = sqs.send_message_batch(
        QueueUrl=url,
        Entries=[{"Id": "a", "MessageBody": "one"}, {"Id": "b", "MessageBody": "bad \x01"}, {"Id": "c", "MessageBody": "three"}],
    )
    assert sorted(entry["Id"] for entry in result["Successful"]) == ["a", "c"]
    (failure,) = result["Failed"]
    assert failure["Id"] == "b" and failure["Code"] == "InvalidMessageContents" and failure["SenderFault"] is True
    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1)["Messages"]
    assert sorted(m["Body"] for m in messages) == ["one", "three"]
    changed = sqs.change_message_visibility_batch(
        QueueUrl=url, Entries=[{"Id": f"v{i}", "ReceiptHandle": m["ReceiptHandle"], "VisibilityTimeout": 60} for i, m in enumerate(messages)]
    )
    assert len(changed["Successful"]) == 2
    deleted = sqs.delete_message_batch(QueueUrl=url, Entries=[{"Id": f"d{i}", "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(messages)])
    assert len(deleted["Successful"]) == 2 and deleted.get("Failed", []) == []


@pytest.mark.parametrize(
    "entries, code",
    [
        ([], "AWS.SimpleQueueService.EmptyBatchRequest"),
        ([{"Id": str(i), "MessageBody": "x"} for i in range(11)], "AWS.SimpleQueueService.TooManyEntriesInBatchRequest"),
        ([{"Id": "dup", "MessageBody": "x"}, {"Id": "dup", "MessageBody": "y"}], "AWS.SimpleQueueService.BatchEntryIdsNotDistinct"),
        ([{"Id": "bad id", "MessageBody": "x"}], "AWS.SimpleQueueService.InvalidBatchEntryId"),
    ],
)
def test_batch_shape_errors(sqs, entries, code):
    url = sqs.create_queue(QueueName=fresh_name("shape"))["QueueUrl"]
    with pytest.raises(ClientError) as excinfo:
        sqs.send_message_batch(QueueUrl=url, Entries=entries)
    assert error_code(excinfo) == code
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_request_errors_carry_aws_codes(sqs):
    name = fresh_name("errors")
    url = sqs.create_queue(QueueName=name, Attributes={"VisibilityTimeout": "5"})["QueueUrl"]
    cases = [
        (lambda: sqs.create_queue(QueueName=name, Attributes={"VisibilityTimeout": "6"}), "QueueAlreadyExists"),
        (lambda: sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=20), "InvalidParameterValue"),
        (lambda: sqs.send_message(QueueUrl=url, MessageBody="\x00"), "InvalidMessageContents"),
        (lambda: sqs.delete_message(QueueUrl=url, ReceiptHandle="nonsense"), "ReceiptHandleIsInvalid"),
        (lambda: sqs.set_queue_attributes(QueueUrl=url, Attributes={"NoSuchAttribute": "1"}), "InvalidAttributeName"),
        (lambda: sqs.purge_queue(QueueUrl=url.rsplit("/", 1)[0] + "/missing"), "AWS.SimpleQueueService.NonExistentQueue"),
    ]
    for call, code in cases:
        with pytest.raises(ClientError) as excinfo:
            call()
        assert error_code(excinfo) == code, excinfo.value.response


def test_purge_cooldown(sqs):
    url = sqs.create_queue(QueueName=fresh_name("purge"))["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="x")
    sqs.purge_queue(QueueUrl=url)
    with pytest.raises(ClientError) as excinfo:
        sqs.purge_queue(QueueUrl=url)
    assert error_code(excinfo) == "AWS.SimpleQueueService.PurgeQueueInProgress"
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
