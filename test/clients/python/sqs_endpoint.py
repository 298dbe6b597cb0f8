"""The raftq SQS endpoint the boto3 suites talk to, and the client they reach it with.

RAFTQ_SQS_ENDPOINT names the endpoint; RAFTQ_EXPECT_PROTOCOL the protocol boto3 must speak to it
(query with Debian botocore's own model, json when AWS_DATA_PATH points at the current one), so
a run that silently fell back to the other protocol fails instead of passing for the wrong reason.
"""
import os
import uuid

import boto3

ENDPOINT = os.environ["RAFTQ_SQS_ENDPOINT"]
PROTOCOL = os.environ["RAFTQ_EXPECT_PROTOCOL"]


def new_client(region_name="us-east-1", **credentials):
    client = boto3.client("sqs", endpoint_url=ENDPOINT, region_name=region_name, **credentials)
    assert client.meta.service_model.protocol == PROTOCOL
    return client


def fresh_name(prefix, suffix=""):
    """A queue name no other run shares: both protocols run against the same node."""
    return f"{prefix}-{PROTOCOL}-{uuid.uuid4().hex[:8]}{suffix}"
