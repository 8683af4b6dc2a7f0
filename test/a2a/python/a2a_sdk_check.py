"""The Python A2A SDK (PyPI `a2a-sdk` 1.x) against a running service, over A2A v1.0.

Usage: python a2a_sdk_check.py BASE_URL TOKEN [BINDING [WEBHOOK_URL]]
BINDING is the transport the client may use: JSONRPC (the default), HTTP+JSON or GRPC.
WEBHOOK_URL: a receiver's base URL; with it the client also sets push notification configs with
paths under it (the caller checks what the receiver got).
Prints one JSON object of what it saw; exits non-zero on the first failed expectation.
Run by test/a2a/python-client.test.ts in a venv that test creates.
"""

import asyncio
import json
import re
import sys
import uuid

import httpx
from google.protobuf.json_format import MessageToDict, ParseDict

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import (
    AuthenticationInfo,
    CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest,
    GetTaskPushNotificationConfigRequest,
    GetTaskRequest,
    ListTaskPushNotificationConfigsRequest,
    ListTasksRequest,
    Message,
    SendMessageConfiguration,
    SendMessageRequest,
    SubscribeToTaskRequest,
    TaskPushNotificationConfig,
    TaskState,
)
from a2a.utils.errors import TaskNotFoundError


def message(parts, **extra):
    return ParseDict({'messageId': str(uuid.uuid4()), 'role': 'ROLE_USER', 'parts': parts, **extra}, Message())


async def collect(stream):
    return [MessageToDict(event) async for event in stream]


def expect(condition, what):
    if not condition:
        raise AssertionError(what)


def grpc_channel_factory(token: str, methods: list):
    """Channels to the card's gRPC address (plaintext) that put the bearer in every call's metadata."""
    import grpc

    def with_bearer(details):
        methods.append(details.method.decode() if isinstance(details.method, bytes) else details.method)
        metadata = grpc.aio.Metadata()
        for key, value in details.metadata or []:
            metadata.add(key, value)
        metadata.add('authorization', f'Bearer {token}')
        return grpc.aio.ClientCallDetails(details.method, details.timeout, metadata, details.credentials, details.wait_for_ready)

    # One class per kind: the channel files each interceptor under the first kind it matches.
    class UnaryBearer(grpc.aio.UnaryUnaryClientInterceptor):
        async def intercept_unary_unary(self, continuation, details, request):
            return await continuation(with_bearer(details), request)

    class StreamBearer(grpc.aio.UnaryStreamClientInterceptor):
        async def intercept_unary_stream(self, continuation, details, request):
            return await continuation(with_bearer(details), request)

    return lambda url: grpc.aio.insecure_channel(url, interceptors=[UnaryBearer(), StreamBearer()])


async def push_flow(host, reviewer, webhook: str, prefix: str) -> dict:
    """The client's own push config calls: on a task paused for input, a config set, read and listed
    (and a second one set and deleted) before the answer; then a config sent with a message. The
    answers are returned as they came (the caller checks that no token or credentials came back),
    with the tasks and paths whose notifications the receiver should get."""
    seen = {}
    paused = [r async for r in reviewer.send_message(SendMessageRequest(message=message([{'text': 'A draft to be notified about. Short.'}])))][0].task
    expect(paused.status.state == TaskState.TASK_STATE_INPUT_REQUIRED, f'push pause: {MessageToDict(paused)}')
    path, gone = f'{prefix}/{paused.id}', f'{prefix}/{paused.id}/deleted'
    seen['paused'] = {'taskId': paused.id, 'path': path, 'deletedPath': gone}
    credentials = AuthenticationInfo(scheme='Basic', credentials='cmVjZWl2ZXI6c2VjcmV0')
    seen['set'] = MessageToDict(await reviewer.create_task_push_notification_config(
        TaskPushNotificationConfig(task_id=paused.id, id='python', url=f'{webhook}{path}', token='receiver-token', authentication=credentials)))
    await reviewer.create_task_push_notification_config(TaskPushNotificationConfig(task_id=paused.id, id='python-deleted', url=f'{webhook}{gone}', token='other-token'))
    seen['get'] = MessageToDict(await reviewer.get_task_push_notification_config(GetTaskPushNotificationConfigRequest(task_id=paused.id, id='python')))
    seen['listed'] = [MessageToDict(c) for c in (await reviewer.list_task_push_notification_configs(ListTaskPushNotificationConfigsRequest(task_id=paused.id))).configs]
    await reviewer.delete_task_push_notification_config(DeleteTaskPushNotificationConfigRequest(task_id=paused.id, id='python-deleted'))
    seen['afterDelete'] = [c.id for c in (await reviewer.list_task_push_notification_configs(ListTaskPushNotificationConfigsRequest(task_id=paused.id))).configs]
    try:
        await reviewer.get_task_push_notification_config(GetTaskPushNotificationConfigRequest(task_id=paused.id, id='python-deleted'))
        seen['deletedGet'] = 'found'
    except TaskNotFoundError:
        seen['deletedGet'] = 'TaskNotFoundError'
    done = [r async for r in reviewer.send_message(SendMessageRequest(message=message([{'data': {'approved': True}}], taskId=paused.id)))][0].task
    expect(done.status.state == TaskState.TASK_STATE_COMPLETED, f'push answer: {MessageToDict(done)}')

    with_send = f'{prefix}/with-message'
    configuration = SendMessageConfiguration(task_push_notification_config=TaskPushNotificationConfig(url=f'{webhook}{with_send}'))
    task = [r async for r in host.send_message(SendMessageRequest(message=message([{'text': 'From the start. Yes.'}]), configuration=configuration))][0].task
    expect(task.status.state == TaskState.TASK_STATE_COMPLETED, f'push send: {MessageToDict(task)}')
    configs = (await host.list_task_push_notification_configs(ListTaskPushNotificationConfigsRequest(task_id=task.id))).configs
    seen['withMessage'] = {'taskId': task.id, 'path': with_send, 'configs': [MessageToDict(c) for c in configs]}
    return seen


async def main(base_url: str, token: str, binding: str, webhook: str | None) -> dict:
    seen = {}
    paths = []
    push_calls = set()
    grpc_methods = []

    async def record(request):
        paths.append(request.url.path)
        if 'pushNotificationConfigs' in request.url.path:
            push_calls.add(f"{request.method} {re.sub('/tasks/[^/]+/', '/tasks/{id}/', request.url.path)}")

    def config(streaming):
        extra = {'grpc_channel_factory': grpc_channel_factory(token, grpc_methods)} if binding == 'GRPC' else {}
        return ClientConfig(streaming=streaming, httpx_client=http, supported_protocol_bindings=[binding], **extra)

    async with httpx.AsyncClient(headers={'Authorization': f'Bearer {token}'}, timeout=30, event_hooks={'request': [record]}) as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()
        seen['interfaces'] = [f'{i.protocol_binding} {i.protocol_version}' for i in card.supported_interfaces]
        blocking = ClientFactory(config(False)).create(card)
        streaming = ClientFactory(config(True)).create(card)

        context_id = str(uuid.uuid4())
        answers = [r async for r in blocking.send_message(SendMessageRequest(message=message([{'text': 'Python clients work. Yes.'}], contextId=context_id)))]
        task = answers[0].task
        expect(task.status.state == TaskState.TASK_STATE_COMPLETED, f'send: {MessageToDict(answers[0])}')
        seen['send'] = TaskState.Name(task.status.state)

        events = await collect(streaming.send_message(SendMessageRequest(message=message([{'text': 'Stream this. Please.'}]))))
        seen['stream'] = [next(iter(event)) for event in events]
        expect(seen['stream'][0] == 'task' and events[-1].get('statusUpdate', {}).get('status', {}).get('state') == 'TASK_STATE_COMPLETED', f'stream: {events}')

        read = await blocking.get_task(GetTaskRequest(id=task.id, history_length=1))
        expect(len(read.history) == 1, f'get: {MessageToDict(read)}')
        seen['get'] = read.id == task.id

        listed = await blocking.list_tasks(ListTasksRequest(context_id=context_id, page_size=5))
        expect([t.id for t in listed.tasks] == [task.id] and listed.total_size == 1, f'list: {MessageToDict(listed)}')
        seen['list'] = listed.total_size

        # One agent's own endpoint and card; a pause answered with a data part of just the values.
        reviewer_url = f'{base_url}/a2a/acme/editorial-review'
        reviewer_card = await A2ACardResolver(http, reviewer_url).get_agent_card()
        seen['reviewerSkills'] = [s.id for s in reviewer_card.skills]
        reviewer = ClientFactory(config(False)).create(reviewer_card)
        reviewer_streaming = ClientFactory(config(True)).create(reviewer_card)
        paused = [r async for r in reviewer.send_message(SendMessageRequest(message=message([{'text': 'A draft from Python. Short.'}])))][0].task
        expect(paused.status.state == TaskState.TASK_STATE_INPUT_REQUIRED, f'pause: {MessageToDict(paused)}')
        snapshot = await collect(reviewer_streaming.subscribe(SubscribeToTaskRequest(id=paused.id)))
        expect(snapshot and 'task' in snapshot[0], f'subscribe: {snapshot}')
        seen['subscribe'] = snapshot[0]['task']['status']['state']
        done = [r async for r in reviewer.send_message(SendMessageRequest(message=message([{'data': {'approved': True}}], taskId=paused.id)))][0].task
        expect(done.status.state == TaskState.TASK_STATE_COMPLETED, f'answer: {MessageToDict(done)}')
        seen['answered'] = TaskState.Name(done.status.state)

        other = [r async for r in reviewer.send_message(SendMessageRequest(message=message([{'text': 'Another draft. Cancel it.'}])))][0].task
        canceled = await reviewer.cancel_task(CancelTaskRequest(id=other.id))
        expect(canceled.status.state == TaskState.TASK_STATE_CANCELED, f'cancel: {MessageToDict(canceled)}')
        seen['cancel'] = TaskState.Name(canceled.status.state)

        if webhook:
            seen['push'] = await push_flow(blocking, reviewer, webhook, f"/python/{binding.lower().replace('+', '-')}")
            # On HTTP+JSON, the spec's paths the push calls took.
            seen['push']['httpJsonCalls'] = sorted(push_calls)
    # Which binding carried the calls: the HTTP+JSON paths, or only the JSON-RPC endpoints.
    seen['httpJsonPaths'] = any(path.endswith(('/message:send', '/message:stream')) for path in paths)
    if binding == 'GRPC':
        # Every task call went over gRPC: the HTTP requests were the cards' only.
        seen['grpcMethods'] = sorted({method.rsplit('/', 1)[-1] for method in grpc_methods})
        seen['httpPaths'] = sorted({path for path in paths if not path.endswith('agent-card.json')})
    return seen


if __name__ == '__main__':
    try:
        print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else 'JSONRPC', sys.argv[4] if len(sys.argv) > 4 else None))))
    except AssertionError as error:
        print(json.dumps({'failed': str(error)}))
        sys.exit(1)
