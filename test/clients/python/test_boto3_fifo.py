"""boto3 (Debian's, unmodified) against a raftq node: FIFO queues, dead-letter redrive, move tasks.

Run by test/clients/boto3-fifo.test.ts with both protocols (see test_boto3_sqs.py). Debian's own
botocore model predates the message move task actions, so over the query protocol those are
skipped with that reason; the JSON run uses the current model and covers them.
"""
import json
import threading
import time

import pytest

import sqs_endpoint
from sqs_endpoint import new_client


def fresh_name(prefix, fifo=True):
    return sqs_endpoint.fresh_name(prefix, ".fifo" if fifo else "")


def arn_of(sqs, url):
    return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def counts(sqs, url):
    attributes = sqs.get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    )["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"]), int(attributes["ApproximateNumberOfMessagesNotVisible"])


def eventually(check, bound_seconds, what):
    deadline = time.monotonic() + bound_seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError(f"not within {bound_seconds} s: {what}")


class OrderTracker:
    """Per group, a delivery is wrong if an earlier SequenceNumber had no delete started yet."""

    def __init__(self):
        self.lock = threading.Lock()
        self.sent = {}
        self.groups = {}
        self.delete_started = set()
        self.problems = []
        self.redeliveries = 0

    def sent_message(self, message_id, group, sequence):
        self.sent[message_id] = (group, sequence)
        self.groups.setdefault(group, []).append((sequence, message_id))
        self.groups[group].sort()

    def received(self, messages):
        with self.lock:
            earlier_in_batch = set()
            for message in messages:
                attributes = message["Attributes"]
                group, sequence = self.sent[message["MessageId"]]
                if int(attributes["SequenceNumber"]) != sequence or attributes["MessageGroupId"] != group:
                    self.problems.append(f"{message['MessageId']} came back as {attributes['MessageGroupId']}/{attributes['SequenceNumber']}")
                if attributes["ApproximateReceiveCount"] != "1":
                    self.redeliveries += 1
                for earlier_sequence, earlier_id in self.groups[group]:
                    if earlier_sequence >= sequence:
                        break
                    if earlier_id not in self.delete_started and earlier_id not in earlier_in_batch:
                        self.problems.append(f"{group}: {sequence} was delivered while {earlier_sequence} was not deleted")
                earlier_in_batch.add(message["MessageId"])

    def deleting(self, message_ids):
        with self.lock:
            self.delete_started.update(message_ids)


def test_fifo_order_under_8_consumers_over_50_groups_with_redeliveries(sqs):
    url = sqs.create_queue(QueueName=fresh_name("order"), Attributes={"FifoQueue": "true", "VisibilityTimeout": "2"})["QueueUrl"]
    tracker = OrderTracker()
    entries = [(f"g{i % 50}", f"m{i}") for i in range(200)]
    for start in range(0, len(entries), 10):
        chunk = entries[start : start + 10]
        out = sqs.send_message_batch(
            QueueUrl=url,
            Entries=[{"Id": str(i), "MessageBody": body, "MessageGroupId": group, "MessageDeduplicationId": body} for i, (group, body) in enumerate(chunk)],
        )
        assert out.get("Failed", []) == []
        for result in out["Successful"]:
            group = chunk[int(result["Id"])][0]
            tracker.sent_message(result["MessageId"], group, int(result["SequenceNumber"]))

    counter = {"deliveries": 0}
    deadline = time.monotonic() + 90
    failures = []

    def consume():
        client = new_client()
        try:
            while len(tracker.delete_started) < len(tracker.sent) and time.monotonic() < deadline:
                messages = client.receive_message(
                    QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1, AttributeNames=["All"]
                ).get("Messages", [])
                tracker.received(messages)
                abandoned_groups = set()
                to_delete = []
                for message in messages:
                    group = message["Attributes"]["MessageGroupId"]
                    with tracker.lock:
                        counter["deliveries"] += 1
                        number = counter["deliveries"]
                    # Every ninth first delivery is abandoned, with the rest of its group in the batch.
                    if group in abandoned_groups or (message["Attributes"]["ApproximateReceiveCount"] == "1" and number % 9 == 0):
                        abandoned_groups.add(group)
                    else:
                        to_delete.append(message)
                if to_delete:
                    tracker.deleting([m["MessageId"] for m in to_delete])
                    out = client.delete_message_batch(
                        QueueUrl=url, Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(to_delete)]
                    )
                    assert out.get("Failed", []) == []
        except Exception as error:  # surfaced by the main thread
            failures.append(error)

    threads = [threading.Thread(target=consume) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert tracker.problems == []
    assert len(tracker.delete_started) == len(tracker.sent)
    assert tracker.redeliveries > 0


def test_fifo_dead_letter_redrive_after_max_receive_count(sqs):
    dlq_url = sqs.create_queue(QueueName=fresh_name("dead"), Attributes={"FifoQueue": "true"})["QueueUrl"]
    dlq_arn = arn_of(sqs, dlq_url)
    source_url = sqs.create_queue(
        QueueName=fresh_name("source"),
        Attributes={"FifoQueue": "true", "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "2"})},
    )["QueueUrl"]
    sent = sqs.send_message(QueueUrl=source_url, MessageBody="poison", MessageGroupId="g", MessageDeduplicationId="poison")
    for receive_count in ("1", "2"):
        messages = sqs.receive_message(QueueUrl=source_url, VisibilityTimeout=0, AttributeNames=["All"])["Messages"]
        assert [(m["Body"], m["Attributes"]["ApproximateReceiveCount"]) for m in messages] == [("poison", receive_count)]
    assert sqs.receive_message(QueueUrl=source_url, VisibilityTimeout=0).get("Messages", []) == []
    dead = sqs.receive_message(QueueUrl=dlq_url, VisibilityTimeout=0, AttributeNames=["All"])["Messages"]
    assert [m["MessageId"] for m in dead] == [sent["MessageId"]]
    assert dead[0]["Attributes"]["DeadLetterQueueSourceArn"] == arn_of(sqs, source_url)
    assert sqs.list_dead_letter_source_queues(QueueUrl=dlq_url)["queueUrls"] == [source_url]


def test_move_task_returns_dead_letters_to_their_source(sqs):
    if not hasattr(sqs, "start_message_move_task"):
        pytest.skip("this botocore model has no message move task actions (Debian's predates them)")
    dlq_url = sqs.create_queue(QueueName=fresh_name("dead", fifo=False))["QueueUrl"]
    dlq_arn = arn_of(sqs, dlq_url)
    source_url = sqs.create_queue(
        QueueName=fresh_name("source", fifo=False),
        Attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": "1"})},
    )["QueueUrl"]
    for body in ("a", "b"):
        sqs.send_message(QueueUrl=source_url, MessageBody=body)

    def all_dead_lettered():
        sqs.receive_message(QueueUrl=source_url, MaxNumberOfMessages=10, VisibilityTimeout=0)
        return counts(sqs, dlq_url) == (2, 0)

    eventually(all_dead_lettered, 10, "both messages dead-lettered")
    task = sqs.start_message_move_task(SourceArn=dlq_arn)
    assert task["TaskHandle"]
    eventually(lambda: sqs.list_message_move_tasks(SourceArn=dlq_arn)["Results"][0]["Status"] == "COMPLETED", 20, "the move task completed")
    result = sqs.list_message_move_tasks(SourceArn=dlq_arn)["Results"][0]
    assert result["ApproximateNumberOfMessagesMoved"] == 2
    assert counts(sqs, dlq_url) == (0, 0)
    assert counts(sqs, source_url) == (2, 0)
