import pytest

from sqs_endpoint import new_client


@pytest.fixture(scope="module")
def sqs():
    return new_client()
