"""An A2A peer built only with the Python A2A SDK (PyPI `a2a-sdk` 1.x, its DefaultRequestHandler,
in-memory task store and Starlette JSON-RPC routes), behind OAuth 2.0 client credentials as a
deployed agent would be. Its agents pause with their own `input-required`, knowing nothing of the
service: `greeter` asks a question in words and greets with the answer; `order` asks with a form
(a JSON Schema data part) and confirms the values it was sent.

Usage: python hitl_peer.py CLIENT_ID CLIENT_SECRET
Prints its base URL as the first line of stdout once it listens. GET /received lists the messages
its agents received (what an answer looked like on the peer's side).
Run by test/a2a/python-peer-hitl.test.ts in the venv test/helpers/python-a2a.ts makes.
"""

import asyncio
import base64
import socket
import sys
import uuid
from urllib.parse import parse_qs

import uvicorn
from google.protobuf.json_format import MessageToDict
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from a2a.helpers import get_data_parts, new_data_part, new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill

ORDER_FORM = {
    'type': 'object',
    'properties': {'orderId': {'type': 'string', 'title': 'Order number'}, 'rush': {'type': 'boolean', 'title': 'Rush delivery'}},
    'required': ['orderId'],
}

CLIENT_ID, CLIENT_SECRET = sys.argv[1], sys.argv[2]
TOKEN = str(uuid.uuid4())
received: list[dict] = []
skill_of: dict[str, str] = {}


class Hitl(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        message = context.message
        text = context.get_user_input()
        data = get_data_parts(message.parts)
        received.append({'taskId': context.task_id, 'text': text, 'data': data})
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        if context.current_task is None:
            metadata = MessageToDict(message.metadata) if message.HasField('metadata') else {}
            skill = str(metadata.get('skillId', 'greeter'))
            skill_of[context.task_id] = skill
            await event_queue.enqueue_event(new_task_from_user_message(message))
            question = [new_text_part('Which order is it, and is it a rush?'), new_data_part(ORDER_FORM)] if skill == 'order' else [new_text_part('What is your name?')]
            await updater.requires_input(updater.new_agent_message(question))
            return
        if skill_of.get(context.task_id) == 'order':
            values = data[0] if data and isinstance(data[0], dict) else {}
            answer = f"Order {values.get('orderId')}{', rushed' if values.get('rush') else ''}."
        else:
            answer = f'Hello, {text}!'
        await updater.add_artifact([new_text_part(answer)], name='answer')
        await updater.complete(updater.new_agent_message([new_text_part(answer)]))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def main() -> None:
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    base = f'http://127.0.0.1:{sock.getsockname()[1]}'
    card = AgentCard(
        name='Python peer',
        description='Agents built with the Python a2a-sdk that ask before they answer',
        version='1.0.0',
        supported_interfaces=[AgentInterface(url=f'{base}/a2a', protocol_binding='JSONRPC', protocol_version='1.0')],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        skills=[AgentSkill(id='greeter', name='Greeter', description='Asks your name, then greets you', tags=['hitl']), AgentSkill(id='order', name='Order desk', description='Asks for the order with a form, then confirms it', tags=['hitl'])],
    )
    handler = DefaultRequestHandler(agent_executor=Hitl(), task_store=InMemoryTaskStore(), agent_card=card)

    async def token(request: Request) -> JSONResponse:
        form = {key: values[0] for key, values in parse_qs((await request.body()).decode()).items()}
        expected = 'Basic ' + base64.b64encode(f'{CLIENT_ID}:{CLIENT_SECRET}'.encode()).decode()
        if request.headers.get('authorization') != expected or form.get('grant_type') != 'client_credentials':
            return JSONResponse({'error': 'invalid_client'}, status_code=401)
        return JSONResponse({'access_token': TOKEN, 'token_type': 'Bearer', 'expires_in': 600})

    async def agent_card(_: Request) -> JSONResponse:
        # The card as A2A 1.0 ProtoJSON, with client credentials at its token URL.
        return JSONResponse({
            'name': card.name,
            'description': card.description,
            'version': card.version,
            'supportedInterfaces': [{'url': f'{base}/a2a', 'protocolBinding': 'JSONRPC', 'protocolVersion': '1.0'}],
            'capabilities': {'streaming': True, 'pushNotifications': False},
            'securitySchemes': {'oauth2': {'oauth2SecurityScheme': {'flows': {'clientCredentials': {'tokenUrl': f'{base}/oauth/token', 'scopes': {}}}}}},
            'securityRequirements': [{'schemes': {'oauth2': {'list': []}}}],
            'defaultInputModes': ['text/plain'],
            'defaultOutputModes': ['text/plain'],
            'skills': [
                {'id': 'greeter', 'name': 'Greeter', 'description': 'Asks your name, then greets you', 'tags': ['hitl']},
                {'id': 'order', 'name': 'Order desk', 'description': 'Asks for the order with a form, then confirms it', 'tags': ['hitl']},
            ],
        })

    async def listed(_: Request) -> JSONResponse:
        return JSONResponse(received)

    rpc_routes = create_jsonrpc_routes(handler, '/a2a')
    app = Starlette(routes=[Route('/oauth/token', token, methods=['POST']), Route('/.well-known/agent-card.json', agent_card), Route('/received', listed), *rpc_routes])

    async def guarded(scope, receive, send):
        if scope['type'] == 'http' and scope['path'].startswith('/a2a'):
            headers = dict(scope['headers'])
            if headers.get(b'authorization', b'').decode() != f'Bearer {TOKEN}':
                await JSONResponse({'error': 'unauthorized'}, status_code=401)(scope, receive, send)
                return
        await app(scope, receive, send)

    print(base, flush=True)
    config = uvicorn.Config(guarded, log_level='warning')
    asyncio.run(uvicorn.Server(config).serve(sockets=[sock]))


main()
