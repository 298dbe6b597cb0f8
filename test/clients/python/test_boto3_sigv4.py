"""boto3 against a raftq node that verifies SigV4 (started with --credentials-file).

RAFTQ_SQS_ENDPOINT names the endpoint, RAFTQ_EXPECT_PROTOCOL the protocol; the environment's
AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY are the ones in the node's credentials file.
"""
import os

import pytest
from botocore.exceptions import ClientError

from sqs_endpoint import PROTOCOL, new_client

def client(**credentials):
    return new_client(region_name="eu-west-1", **credentials)


def test_signed_requests_are_accepted_and_messages_carry_the_access_key():
    sqs = client()
    url = sqs.create_queue(QueueName=f"signed-{PROTOCOL}", Attributes={"VisibilityTimeout": "30"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="signed body with spaces & symbols ~!*'()")
    (message,) = sqs.receive_message(QueueUrl=url, AttributeNames=["SenderId"], WaitTimeSeconds=1)["Messages"]
    assert message["Attributes"]["SenderId"] == os.environ["AWS_ACCESS_KEY_ID"]


def test_a_wrong_secret_is_refused():
    sqs = client(aws_access_key_id=os.environ["AWS_ACCESS_KEY_ID"], aws_secret_access_key="not-the-secret")
    with pytest.raises(ClientError) as excinfo:
        sqs.list_queues()
    assert excinfo.value.response["Error"]["Code"] == "SignatureDoesNotMatch"
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403


def test_an_unknown_access_key_is_refused():
    sqs = client(aws_access_key_id="AKIDNOBODY", aws_secret_access_key="whatever")
    with pytest.raises(ClientError) as excinfo:
        sqs.list_queues()
    assert excinfo.value.response["Error"]["Code"] == "InvalidClientTokenId"


@pytest.mark.skipif(PROTOCOL != "query", reason="a presigned URL carries query parameters; a JSON request needs its body")
def test_a_presigned_url_works_without_the_sdk():
    import urllib.request

    sqs = client()
    client().create_queue(QueueName="signed-presign")
    # The operation's own method is POST; a URL to open as a link is signed for GET.
    url = sqs.generate_presigned_url("list_queues", Params={"QueueNamePrefix": "signed-"}, ExpiresIn=60, HttpMethod="GET")
    with urllib.request.urlopen(url) as response:
        assert response.status == 200
        assert b"signed-" in response.read()
